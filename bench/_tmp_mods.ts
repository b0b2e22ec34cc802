import * as esbuild from "esbuild";
import { installNodeModules } from "../tests/support/bundle.ts";
await installNodeModules();
const result = await esbuild.build({
  entryPoints: ["edge/cloudflare/app/worker.ts"],
  bundle: true,
  write: false,
  metafile: true,
  format: "esm",
  minify: true,
  platform: "browser",
  conditions: ["worker", "browser"],
  target: "es2022",
  logLevel: "silent",
});
const out = Object.values(result.metafile.outputs)[0];
const rows = Object.entries(out.inputs).map(([p, i]) =>
  [p.replace(/.*node_modules\//, ""), i.bytesInOutput] as const
).sort((a, b) => b[1] - a[1]);
for (const [p, b] of rows.slice(0, Number(Deno.args[0] ?? 60))) console.log(b, p);
await esbuild.stop();
