// Run by bench/html_to_markdown.ts, bundled for Node as a user's program would be, with `node`
// and with Deno: times htmlToMarkdown against htmlparser2's bare tokenizer over the corpus pages
// in argv[2] for argv[3] rounds, in this one process, and prints the report as JSON.
import { htmlToMarkdown } from "@outpost/agent-tools/fetch";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { timeAgainstFloor } from "./converter_speed.ts";
import { tokenizeOnly } from "./floor_tokenizer.ts";

const [dir, rounds] = process.argv.slice(2);
const pages = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())
  .map((e) => e.name).sort()
  .map((name) => new TextDecoder().decode(readFileSync(`${dir}/${name}/source.html`)));

const baseUrl = "http://fakehost/test/page.html";
const report = timeAgainstFloor(pages, tokenizeOnly, [
  ["main", (html) => htmlToMarkdown(html, { baseUrl, content: "main" }).markdown],
  ["full", (html) => htmlToMarkdown(html, { baseUrl, content: "full" }).markdown],
], Number(rounds));
// Deno gives `process.version` as the Node version it matches: name the runtime itself.
const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
const runtime = deno ? `Deno ${deno.version.deno}` : `Node ${process.version}`;
console.log(JSON.stringify({ runtime, pages: pages.length, ...report }));
