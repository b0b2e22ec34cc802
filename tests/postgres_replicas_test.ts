import assert from "node:assert/strict";
import { bundleForNode, findNode, nodeServer } from "./support/node.ts";
import {
  assertRefusesDatabaseUrls,
  freshDatabase,
  postgresMissing,
  REFUSED_DATABASE_URLS,
} from "./support/postgres.ts";
import { inheritedEnv } from "./support/inherited_env.ts";
import { start, startArgs, type Started, within } from "./support/service_process.ts";
import { sseEvents } from "./support/sse.ts";
import { waitFor } from "./support/wait.ts";

// Two replicas of `deno task start`, real processes, on one PostgreSQL database
// (OUTPOST_DATABASE_URL): an agent asks on one, the operator answers on the other, and either
// may die by SIGKILL in the middle. Nothing is lost, and nothing is answered twice.

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";

/** What the helpers need of a server: where it listens. */
type Replica = Pick<Started, "url">;

interface Question {
  id: string;
  question: string;
  toolCallId?: string;
}

/** A server's environment: the tokens, and a fresh database. */
async function replicaEnv(): Promise<Record<string, string>> {
  return {
    OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
    OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
    OUTPOST_DATABASE_URL: await freshDatabase(),
  };
}

/** Two replicas on a fresh database, stopped (or already killed) after `run`. */
async function withReplicas(run: (a: Started, b: Started) => Promise<void>): Promise<void> {
  const env = { ...inheritedEnv(), ...await replicaEnv() };
  const [a, b] = await Promise.all([start([], env), start([], env)]);
  const killed = new Set<Started>();
  try {
    assert.match(a.output, /Store:\s+PostgreSQL postgres:\/\/outpost@127\.0\.0\.1:\d+\/\w+\n/);
    await run(
      { ...a, kill: () => (killed.add(a), a.kill()) },
      { ...b, kill: () => (killed.add(b), b.kill()) },
    );
  } finally {
    for (const replica of [a, b]) {
      if (!killed.has(replica)) await replica.stop();
    }
  }
}

/** An `ask_human` call over HTTP with a tool-call id, as an agent's HTTP client makes it. */
function ask(replica: Replica, callId: string, question: string): Promise<Response> {
  return fetch(`${replica.url}/tools/ask_human`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOOL_TOKEN}`, "outpost-tool-call-id": callId },
    body: JSON.stringify({ question, options: [{ label: "Yes" }, { label: "No" }] }),
  });
}

function operator(replica: Replica, path: string, body?: unknown): Promise<Response> {
  return fetch(`${replica.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function pending(replica: Replica): Promise<Question[]> {
  return (await (await operator(replica, "/questions")).json()).questions;
}

/** Waits until `replica` lists exactly `count` pending questions, and returns them. */
async function waitPending(replica: Replica, count: number): Promise<Question[]> {
  let questions: Question[] = [];
  await waitFor(
    async () => (questions = await pending(replica)).length === count,
    `${count} pending`,
  );
  return questions;
}

async function answer(replica: Replica, id: string, text: string): Promise<number> {
  const response = await operator(replica, `/questions/${id}/answer`, { answer: text });
  await response.body?.cancel();
  return response.status;
}

/** The replica's console event stream, from which `asked()` reads the next question asked. */
async function consoleEvents(replica: Replica) {
  const response = await operator(replica, "/questions/events");
  assert.equal(response.status, 200);
  const events = sseEvents(response);
  return {
    ...events,
    async asked(): Promise<Question> {
      let event = await events.next();
      while (event.event !== "asked") event = await events.next();
      return event.data as unknown as Question;
    },
  };
}

/** A test on two fresh replicas (see `withReplicas`). */
function replicaTest(name: string, run: (a: Started, b: Started) => Promise<void>): void {
  Deno.test({ name, ignore: !!postgresMissing, ...within(2), fn: () => withReplicas(run) });
}

/** The resolved questions `replica` lists, newest first. */
async function history(replica: Replica): Promise<{ status: string; question: Question }[]> {
  return (await (await operator(replica, "/questions/history")).json()).questions;
}

replicaTest(
  "asked on one replica, seen on the other's event stream, answered there",
  async (a, b) => {
    const events = await consoleEvents(b);
    try {
      const asking = ask(a, "call_1", "Deploy to production?");
      const question = await events.asked();
      assert.equal(question.question, "Deploy to production?");
      assert.equal(question.toolCallId, "call_1");
      assert.equal(await answer(b, question.id, "Yes"), 200);
      const response = await asking;
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { text: "Yes" });
      const event = await events.next();
      assert.deepEqual([event.event, event.data.id], ["answered", question.id]);
      assert.deepEqual(await pending(a), []);
      assert.equal(await answer(a, question.id, "No"), 409, "answered once, on any replica");
    } finally {
      await events.close();
    }
  },
);

replicaTest(
  "the asker's replica is killed: the retry on the other re-attaches and gets the answer",
  async (a, b) => {
    const lost = ask(a, "call_2", "Rotate the keys?").then(
      (response) => `answered ${response.status}`,
      () => "dropped",
    );
    const [question] = await waitPending(b, 1);
    await a.kill();
    assert.equal(await lost, "dropped");
    // The agent retries the same call on the replica it lands on now.
    const retried = ask(b, "call_2", "Rotate the keys?");
    assert.deepEqual((await waitPending(b, 1)).map((q) => q.id), [question.id], "re-attached");
    assert.equal(await answer(b, question.id, "No"), 200);
    const response = await retried;
    assert.deepEqual(await response.json(), { text: "No" });
    // Once answered, a further retry gets the same answer at once and asks nothing.
    const again = await ask(b, "call_2", "Rotate the keys?");
    assert.deepEqual(await again.json(), { text: "No" });
    const resolved = await history(b);
    assert.deepEqual(
      resolved.map((r) => [r.question.id, r.status]),
      [[question.id, "answered"]],
      "one question, answered once",
    );
  },
);

replicaTest(
  "the operator's replica is killed while answering: the answer stands or is given again",
  async (a, b) => {
    const asking = ask(a, "call_3", "Refund order 7?");
    const [question] = await waitPending(b, 1);
    // The answer and the kill race: the answer may or may not have been committed.
    const answering = answer(b, question.id, "Yes").catch(() => "dropped");
    await b.kill();
    await answering;
    // The operator retries on the surviving replica: the same answer succeeds either way
    // (a retry of a committed answer is no conflict), another one does not.
    assert.equal(await answer(a, question.id, "Yes"), 200);
    assert.equal(await answer(a, question.id, "No"), 409);
    const response = await asking;
    assert.deepEqual(await response.json(), { text: "Yes" });
    assert.deepEqual(
      (await history(a)).map((r) => [r.question.id, r.status]),
      [[question.id, "answered"]],
    );
  },
);

replicaTest(
  "the operator's replica dies with a question open: it stays answerable on the other",
  async (a, b) => {
    const events = await consoleEvents(b);
    const asking = ask(a, "call_4", "Merge the branch?");
    const seen = await events.asked();
    await b.kill();
    await events.close().catch(() => {});
    const [question] = await waitPending(a, 1);
    assert.equal(question.id, seen.id);
    assert.equal(await answer(a, question.id, "Yes"), 200);
    assert.deepEqual(await (await asking).json(), { text: "Yes" });
  },
);

Deno.test({
  name: "a Node server and a Deno replica on one database answer each other's questions",
  ignore: !!postgresMissing,
  ...within(2),
  async fn() {
    const node = await findNode();
    assert.ok(node, "no node found (OUTPOST_NODE, else PATH)");
    const env = await replicaEnv();
    const temp = await Deno.makeTempDir({ prefix: "outpost-node-" });
    const deno = await start([], { ...inheritedEnv(), ...env });
    try {
      const module = await bundleForNode("tests/fixtures/node_service.ts", temp);
      await using onNode = await nodeServer(node, module, { env });
      const rounds: [Replica, Replica, string][] = [[onNode, deno, "n1"], [deno, onNode, "d1"]];
      for (const [asker, operatorSide, callId] of rounds) {
        const asking = ask(asker, callId, `Asked on ${callId}?`);
        const [question] = await waitPending(operatorSide, 1);
        assert.equal(question.toolCallId, callId);
        assert.equal(await answer(operatorSide, question.id, "Yes"), 200);
        assert.deepEqual(await (await asking).json(), { text: "Yes" });
        assert.equal(await answer(asker, question.id, "No"), 409, "answered once");
      }
    } finally {
      await deno.stop();
      await Deno.remove(temp, { recursive: true });
    }
  },
});

Deno.test({
  name: "a bad or unreachable OUTPOST_DATABASE_URL stops the start with exit 2, never the password",
  ...within(4),
  async fn() {
    // Besides those every entry refuses, the test server, when there is one, refuses a user it
    // does not know.
    const refusing = postgresMissing ? [] : [
      [
        (await freshDatabase()).replace("//outpost@", "//agent:hunter2-secret@"),
        /Cannot connect to the database at postgres:\/\/agent:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(OUTPOST_DATABASE_URL\): role "agent" does not exist/,
      ] as const,
    ];
    await assertRefusesDatabaseUrls(
      [...await startArgs(), "--port", "0"],
      { ...inheritedEnv(), OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN },
      [...refusing, ...REFUSED_DATABASE_URLS],
    );
  },
});
