/**
 * Abandoned keyed `ask_human` calls on the Deno service's channel (`DenoKvQuestionChannel` on a
 * file-backed store, called directly): how many concurrent waiting asks it stores per second, and
 * the CPU this process burns while it holds them with no client, then with one and five operator
 * event streams open (the HTTP app's `/questions/events`, called in-process). CPU is read from
 * /proc/self/stat (Linux), over 10 s each. Not part of `deno task bench`:
 *
 * ```sh
 * deno run --lock=dev.lock -A bench/question_load.ts [concurrent=1000] [held=10000] [chunk=200]
 * ```
 *
 * @module
 */
import { DenoKvQuestionChannel } from "../edge/deno/question_channel.ts";
import { createApp } from "../src/http/app.ts";

const [concurrent, held, chunk] = [1000, 10_000, 200].map((fallback, i) =>
  Deno.args[i] === undefined ? fallback : Number(Deno.args[i])
);
const TOOL_TOKEN = "tool-token-0123456789";
const OPERATOR_TOKEN = "operator-token-0123456789";

/** This process's CPU time (user and system), in milliseconds. */
function cpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = await Deno.makeTempDir();
const kv = await Deno.openKv(`${dir}/outpost.sqlite3`);
const channel = new DenoKvQuestionChannel(kv);

async function stored(): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: ["outpost", "human", "q"] })) count++;
  return count;
}

async function until(count: number): Promise<void> {
  while ((await stored()) < count) await delay(100);
}

let asked = 0;
function ask(): void {
  const n = asked++;
  // 200 sessions, so that the default caps (10,000; 100 per session) hold 10,000 exactly.
  channel.ask({
    question: `Question ${n}?`,
    options: [],
    multiSelect: false,
    key: `call_${n}`,
    sessionId: `session_${n % 200}`,
  }).catch(() => {});
}

if (concurrent > 0) {
  const start = performance.now();
  for (let i = 0; i < concurrent; i++) ask();
  await until(concurrent);
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `stored ${concurrent} concurrent keyed asks in ${seconds.toFixed(1)} s: ` +
      `${(concurrent / seconds).toFixed(0)} per second`,
  );
}
const start = performance.now();
while (asked < held) {
  const target = Math.min(held, asked + chunk);
  while (asked < target) ask();
  await until(target);
}
console.log(`filled to ${held} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
await delay(3000);

async function idle(label: string): Promise<void> {
  const cpu = cpuMs();
  const wall = performance.now();
  await delay(10_000);
  const share = (cpuMs() - cpu) / (performance.now() - wall);
  console.log(`${label}: ${(100 * share).toFixed(1)}% of a core`);
}

await idle(`${held} waiting asks, no event stream`);
const app = createApp({
  tools: [],
  channel,
  auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
});
const streams: AbortController[] = [];
/** Opens an event stream and reads it, returning once its first burst is in. */
async function open(): Promise<void> {
  const stop = new AbortController();
  streams.push(stop);
  const response = await app.fetch(
    new Request("http://localhost/questions/events", {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      signal: stop.signal,
    }),
  );
  const reader = response.body!.getReader();
  let bytes = 0;
  (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
    } catch {
      // Aborted at the end.
    }
  })();
  for (let last = -1; last !== bytes; await delay(2000)) last = bytes;
}
await open();
await idle(`${held} waiting asks, 1 event stream`);
for (let i = 0; i < 4; i++) await open();
await idle(`${held} waiting asks, 5 event streams`);
for (const stream of streams) stream.abort();
app.close();
await channel.close();
kv.close();
await Deno.remove(dir, { recursive: true });
Deno.exit(0);
