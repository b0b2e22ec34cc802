/**
 * The scale check of issue 22, in workerd: `calls` concurrent waiting `ask_human` calls over the
 * JSON API, spread over `tenants` tenants (each its own Durable Object), each answered exactly
 * once by its tenant's operator; and the Durable Object requests each waiting call costs. The
 * Worker is bench/tenant_scale_worker.ts: the service's own app with every Durable Object
 * request counted and a wait slice of `sliceMs` (30 s in the Worker), so the cost per slice,
 * measured over `slices` slices, gives the cost per minute at 30 s. Exits non-zero when a call
 * is lost, answered twice, or costs more than one request per slice (a call's window may hold
 * one slice boundary more). Not part of `deno task bench` (it takes about three minutes):
 *
 * ```sh
 * deno run --lock=dev.lock -A bench/tenant_scale.ts [calls=1000] [tenants=50] [sliceMs=5000] [slices=4]
 * ```
 *
 * @module
 */
import { startWorker } from "../tests/support/workerd.ts";

const [calls, tenantCount, sliceMs, slices] = [1000, 50, 5000, 4].map((fallback, i) =>
  Deno.args[i] === undefined ? fallback : Number(Deno.args[i])
);
/** The Worker's own wait slice, which the per-minute figure is given for. */
const WORKER_SLICE_MS = 30_000;

const tenants = Array.from({ length: tenantCount }, (_, i) => {
  const id = `t${String(i).padStart(2, "0")}`;
  return {
    id,
    toolTokens: [`tool-token-${id}-0123456789`],
    operatorToken: `op-token-${id}-0123456789`,
  };
});
const headers = (token: string) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
});

await using worker = await startWorker({
  entry: new URL("./tenant_scale_worker.ts", import.meta.url),
  vars: {
    OUTPOST_TENANTS: JSON.stringify(tenants),
    OUTPOST_TOOLS: "ask_human",
    OUTPOST_ACCESS_LOG: "false",
    SLICE_MS: String(sliceMs),
  },
});
const counts = async (): Promise<Record<string, number>> => await (await send("/__counts")).json();
let retries = 0;
// A fresh connection per request: a pooled one that workerd is closing fails the request sent on it.
const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
/**
 * Sends a request, again when its connection drops: every request here may be repeated (an
 * answer sent twice is accepted twice, and a retried call re-attaches by its tool-call id).
 */
async function send(path: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    try {
      return await worker.fetch(path, { ...init, client } as RequestInit);
    } catch {
      retries++;
    }
  }
}
const pending = async (tenant: typeof tenants[number]) =>
  (await (await send("/questions", { headers: headers(tenant.operatorToken) })).json())
    .questions as { id: string; question: string }[];

const waitingCount = async () =>
  (await Promise.all(tenants.map(pending))).reduce((a, q) => a + q.length, 0);
const started = performance.now();
const replies: Promise<{ n: number; status: number; body: { text?: string } }>[] = [];
async function ask(n: number) {
  const tenant = tenants[n % tenantCount];
  const response = await send("/tools/ask_human", {
    method: "POST",
    headers: { ...headers(tenant.toolTokens[0]), "outpost-tool-call-id": `call-${n}` },
    body: JSON.stringify({ question: `Question ${n} of ${tenant.id}?` }),
  });
  return { n, status: response.status, body: await response.json() };
}
// Opened a hundred at a time, each hundred waiting before the next opens.
for (let n = 0; n < calls; n++) {
  replies.push(ask(n));
  if ((n + 1) % 100 !== 0 && n + 1 !== calls) continue;
  for (;;) {
    const waiting = await waitingCount();
    if (waiting === n + 1) break;
    if (performance.now() - started > 300_000) throw new Error(`only ${waiting} waiting`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
const waitingAfterMs = performance.now() - started;

// Nothing else talks to the objects now: what they receive is what the waiting calls cost.
const before = await counts();
const windowStart = performance.now();
await new Promise((resolve) => setTimeout(resolve, slices * sliceMs));
const after = await counts();
const windowMs = performance.now() - windowStart;
const inWindow = Object.fromEntries(
  Object.keys(after).map((op) => [op, after[op] - (before[op] ?? 0)]).filter(([, n]) => n),
);
const total = (Object.values(inWindow) as number[]).reduce((a, n) => a + n, 0);
const perCallPerSlice = total / calls / (windowMs / sliceMs);

// Each tenant's operator answers its own questions, once.
const answerStart = performance.now();
const answered = new Map<string, string>();
await Promise.all(tenants.map(async (tenant) => {
  for (const question of await pending(tenant)) {
    const response = await send(`/questions/${question.id}/answer`, {
      method: "POST",
      headers: headers(tenant.operatorToken),
      body: JSON.stringify({ answer: `Answer to ${question.question}` }),
    });
    if (response.status !== 200) throw new Error(`answer: ${response.status}`);
    await response.body?.cancel();
    answered.set(question.question, tenant.id);
  }
}));
const results = await Promise.all(replies);
const answerMs = performance.now() - answerStart;
const wrong = results.filter(({ n, status, body }) =>
  status !== 200 ||
  !String(body.text).includes(`Answer to Question ${n} of ${tenants[n % tenantCount].id}?`)
);
// A second answer to an answered question is refused: 409.
const [first] = tenants;
const again = await send("/questions/history?limit=1", {
  headers: headers(first.operatorToken),
});
const [resolved] = (await again.json()).questions;
const twice = await send(`/questions/${resolved.question.id}/answer`, {
  method: "POST",
  headers: headers(first.operatorToken),
  body: JSON.stringify({ answer: "Again" }),
});
await twice.body?.cancel();

console.log(
  [
    `${calls} waiting ask_human calls over ${tenantCount} tenants (a Durable Object each), wait slice ${sliceMs} ms:`,
    `  all waiting after ${(waitingAfterMs / 1000).toFixed(1)} s`,
    `  Durable Object requests over ${(windowMs / 1000).toFixed(1)} s of waiting: ${total} (${
      JSON.stringify(inWindow)
    })`,
    `  = ${perCallPerSlice.toFixed(3)} per waiting call per slice, ${
      (perCallPerSlice * 60_000 / WORKER_SLICE_MS).toFixed(2)
    } a minute at the Worker's ${WORKER_SLICE_MS / 1000} s slice`,
    `  answered: ${answered.size} questions, ${
      results.length - wrong.length
    } calls got their own answer, ${wrong.length} did not; all in ${
      (answerMs / 1000).toFixed(1)
    } s`,
    `  a second answer to an answered question: ${twice.status}`,
    `  requests sent again after workerd dropped their connection: ${retries}`,
  ].join("\n"),
);
if (
  wrong.length > 0 || answered.size !== calls || twice.status !== 409 ||
  perCallPerSlice > (slices + 1) / slices
) {
  console.error("FAILED", wrong.slice(0, 3));
  Deno.exit(1);
}
client.close();
