import assert from "node:assert/strict";
import { askHuman, SetupError, ToolError } from "../mod.ts";
import {
  type HumanQuestion,
  MAX_ANSWER_LENGTH,
  type QuestionRequest,
  TooManyQuestionsError,
} from "../src/human/mod.ts";
import { DenoKvQuestionChannel } from "../edge/deno/mod.ts";
import { recordExpiries } from "./support/kv.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { nextQuestion } from "./support/questions.ts";
import { waitFor } from "./support/wait.ts";
import { questionChannelContract } from "../src/testing/question_channel_contract.ts";

function request(question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return { question, options: [], multiSelect: false, ...extra };
}

/** When the last hold on question `id`'s lease (under the prefix `t`) runs out. */
async function leaseEnd(kv: Deno.Kv, id: string): Promise<number> {
  const stored = await kv.get<{ leases: Record<string, number> }>(["t", "q", id]);
  return Math.max(-Infinity, ...Object.values(stored.value?.leases ?? {}));
}

/** A file-backed store in a fresh temporary directory, removed by `dispose`. */
async function tempStore(): Promise<{ path: string; dispose(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "outpost_kv_" });
  return {
    path: `${dir}/questions.sqlite3`,
    dispose: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("a question is stored before the ask waits, and its answer before answer() resolves", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const outcome = channel.ask(request("Which region?", { sessionId: "s", key: "call_1" }));
  const question = await nextQuestion(channel);
  assert.equal(question.sessionId, "s");
  assert.deepEqual(await channel.pending, [question]);
  assert.deepEqual(await channel.get(question.id), { status: "pending", question });

  assert.equal(await channel.answer(question.id, "eu-west"), true);
  assert.equal(await channel.answer(question.id, "us-east"), false);
  assert.equal(await channel.cancel(question.id), false);
  const record = await channel.get(question.id);
  assert.equal(record?.status === "answered" && record.answer, "eu-west");
  assert.deepEqual(await outcome, { status: "answered", answer: "eu-west" });
  assert.deepEqual(await channel.pending, []);
  assert.equal(await channel.get("no-such-id"), undefined);
  assert.equal(await channel.answer("no-such-id", "x"), false);
  assert.equal(await channel.cancel("no-such-id"), false);
  await channel.close();
  kv.close();
  await store.dispose();
});

Deno.test("answering twice: the first answer wins, the second resolves false", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const other = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const rival = new DenoKvQuestionChannel(other, { prefix: ["t"] });
  const outcome = channel.ask(request("Deploy?"));
  const question = await nextQuestion(channel);
  const results = await Promise.all([
    channel.answer(question.id, "yes"),
    rival.answer(question.id, "no"),
    rival.cancel(question.id, "changed my mind"),
  ]);
  assert.deepEqual(results.filter(Boolean).length, 1, "exactly one call resolves the question");
  const first = await outcome;
  const record = await rival.get(question.id);
  assert.equal(record?.status, first.status);
  assert.equal(await channel.answer(question.id, "maybe"), false);
  assert.deepEqual(await outcome, first, "a later answer changes nothing");
  assert.equal((await channel.get(question.id))?.status, first.status);
  await channel.close();
  await rival.close();
  kv.close();
  other.close();
  await store.dispose();
});

Deno.test("an agent that restarts re-attaches by toolCallId and gets the operator's answer", async () => {
  const store = await tempStore();
  const input = { question: "Which database should I migrate?" };
  const call = { sessionId: "s1", toolCallId: "toolu_01" };

  // The agent asks, then its store handle goes away mid-wait, as in a crash.
  const agentKv = await Deno.openKv(store.path);
  const agent = new DenoKvQuestionChannel(agentKv);
  const firstRun = askHuman(agent).execute(input, call);
  const asked = await nextQuestion(agent);
  agentKv.close();
  await assert.rejects(
    firstRun,
    (error) => error instanceof ToolError && /the Deno KV store was closed/.test(error.message),
  );

  // The operator, on a second handle, still sees the question and answers it.
  const operatorKv = await Deno.openKv(store.path);
  const operator = new DenoKvQuestionChannel(operatorKv);
  assert.deepEqual((await operator.pending).map((q) => q.id), [asked.id]);
  assert.equal(await operator.answer(asked.id, "orders"), true);
  await operator.close();
  operatorKv.close();

  // The restarted agent re-runs the same call: the answer comes back, nothing is asked again.
  const restartedKv = await Deno.openKv(store.path);
  const restarted = new DenoKvQuestionChannel(restartedKv);
  assert.equal(await askHuman(restarted).execute(input, call), "orders");
  assert.deepEqual(await restarted.pending, []);
  let stored = 0;
  for await (const _ of restartedKv.list({ prefix: ["outpost", "human", "q"] })) stored++;
  assert.equal(stored, 1);
  await restarted.close();
  restartedKv.close();
  await store.dispose();
});

Deno.test("a re-attached call waits on the pending question until the answer arrives", async () => {
  const store = await tempStore();
  const input = { question: "Approve the refund?" };
  const call = { toolCallId: "call_42" };

  const firstKv = await Deno.openKv(store.path);
  const first = new DenoKvQuestionChannel(firstKv, { prefix: ["t"] });
  const firstRun = askHuman(first).execute(input, call);
  const asked = await nextQuestion(first);
  await first.close("agent restarting");
  await assert.rejects(firstRun, /closed \(agent restarting\)/);
  firstKv.close();

  const agentKv = await Deno.openKv(store.path);
  const agent = new DenoKvQuestionChannel(agentKv, { prefix: ["t"] });
  const rerun = askHuman(agent).execute(input, call);
  const operatorKv = await Deno.openKv(store.path);
  const operator = new DenoKvQuestionChannel(operatorKv, { prefix: ["t"] });
  const seen = await nextQuestion(operator);
  assert.equal(seen.id, asked.id, "the re-run waits on the question first asked");
  assert.equal(await operator.answer(seen.id, "approved"), true);
  assert.equal(await rerun, "approved");
  await agent.close();
  await operator.close();
  agentKv.close();
  operatorKv.close();
  await store.dispose();
});

Deno.test("close ends this object's waits and refuses its asks, but keeps keyed questions stored", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const other = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const outcome = channel.ask(request("Still there?", { key: "call_1" }));
  const question = await nextQuestion(other);
  const unkeyed = channel.ask(request("Nobody can come back for this?"));
  await waitFor(async () => (await other.pending).length === 2, "both questions");
  const orphan = (await other.pending)[1];
  await channel.close("shutting down");
  await channel.close("ignored");
  assert.deepEqual(await outcome, { status: "closed", reason: "shutting down" });
  assert.deepEqual(await unkeyed, { status: "closed", reason: "shutting down" });
  assert.deepEqual(await channel.ask(request("Another?")), {
    status: "closed",
    reason: "shutting down",
  });
  // The unkeyed question could never be re-attached to: it is withdrawn, the keyed one stays.
  assert.deepEqual((await other.pending).map((q) => q.id), [question.id]);
  const withdrawn = await other.get(orphan.id);
  assert.equal(withdrawn?.status === "cancelled" && withdrawn.reason, "withdrawn: shutting down");
  assert.equal(await other.answer(orphan.id, "too late"), false);
  assert.equal(await other.cancel(question.id, "withdrawn by operator"), true);
  await other.close();
  kv.close();
  await store.dispose();
});

Deno.test("abort and timeout withdraw the stored question before the call ends", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"] });

  const controller = new AbortController();
  const aborted = channel.ask(request("Abort me?"), { signal: controller.signal });
  const first = await nextQuestion(channel);
  const reason = new Error("stop");
  controller.abort(reason);
  await assert.rejects(aborted, (error) => error === reason);
  assert.deepEqual(await channel.pending, []);
  const record = await channel.get(first.id);
  assert.equal(
    record?.status === "cancelled" && record.reason,
    "withdrawn: the asking call was aborted",
  );
  assert.equal(await channel.answer(first.id, "late"), false);

  const timedOut = askHuman(channel, { timeoutMs: 30 }).execute({ question: "Quick?" });
  await assert.rejects(timedOut, /did not answer within 30 ms/);
  assert.deepEqual(await channel.pending, []);
  await channel.close();
  kv.close();
  await store.dispose();
});

Deno.test("many channels on one store: every asker gets its own answer, prefixes stay apart", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const askers = Array.from({ length: 12 }, () => new DenoKvQuestionChannel(kv, { prefix: ["t"] }));
  const operator = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const elsewhere = new DenoKvQuestionChannel(kv, { prefix: ["other"] });
  const outcomes = askers.map((channel, index) => channel.ask(request(`question ${index}`)));
  const answering = (async () => {
    let answered = 0;
    for await (const q of operator.questions()) {
      assert.equal(await operator.answer(q.id, `answer to ${q.question}`), true);
      if (++answered === askers.length) break;
    }
  })();
  assert.deepEqual(
    await Promise.all(outcomes),
    askers.map((_, index) => ({ status: "answered", answer: `answer to question ${index}` })),
  );
  await answering;
  assert.deepEqual(await elsewhere.pending, []);
  await Promise.all([...askers, operator, elsewhere].map((channel) => channel.close()));
  kv.close();
  await store.dispose();
});

Deno.test("two processes on one file see each other's questions and answers", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["peers"], pollMs: 25 });

  const asker = peer("ask", store.path, "Asked by the child?", "child_call");
  const question = await nextQuestion(channel);
  assert.equal(question.question, "Asked by the child?");
  assert.equal(question.toolCallId, "child_call");
  assert.equal(await channel.answer(question.id, "answered by the parent"), true);
  assert.deepEqual(await asker, { status: "answered", answer: "answered by the parent" });

  const answerer = peer("answer", store.path);
  const outcome = await channel.ask(request("Asked by the parent?", { key: "parent_call" }));
  assert.deepEqual(outcome, { status: "answered", answer: "peer saw: Asked by the parent?" });
  assert.deepEqual(await answerer, { question: "Asked by the parent?", answered: true });

  await channel.close();
  kv.close();
  await store.dispose();
});

Deno.test("DenoKvQuestionChannel rejects a bad set-up at construction", async () => {
  const kv = await Deno.openKv(":memory:");
  assert.throws(() => new DenoKvQuestionChannel({} as Deno.Kv), SetupError);
  assert.throws(
    () => new DenoKvQuestionChannel(kv, { prefix: "outpost" as unknown as Deno.KvKey }),
    SetupError,
  );
  assert.throws(() => new DenoKvQuestionChannel(kv, { retainMs: 0 }), SetupError);
  assert.throws(() => new DenoKvQuestionChannel(kv, { pollMs: -1 }), SetupError);
  // Deno fires a longer timer at once, which would poll without pause.
  assert.throws(() => new DenoKvQuestionChannel(kv, { pollMs: 2 ** 31 }), /up to 2147483647/);
  for (const pollMs of [2 ** 31 - 1, Infinity]) new DenoKvQuestionChannel(kv, { pollMs });
  kv.close();
});

Deno.test("a tool-call id re-used by another session, or for another question, asks afresh", async () => {
  const store = await tempStore();
  const staging = { question: "Delete the staging DB?" };
  const firstKv = await Deno.openKv(store.path);
  const first = new DenoKvQuestionChannel(firstKv);
  const batchA = askHuman(first).execute(staging, { sessionId: "A", toolCallId: "1" });
  assert.equal(await first.answer((await nextQuestion(first)).id, "YES"), true);
  assert.equal(await batchA, "YES");
  await first.close();
  firstKv.close();

  // Another process, days later: the store still holds batch A's answer under its key.
  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv);
  const ask = askHuman(channel);
  assert.equal(await ask.execute(staging, { sessionId: "A", toolCallId: "1" }), "YES");
  const fresh: [string, string][] = [
    ["B", "Delete the PRODUCTION DB?"],
    ["A", "Delete the PRODUCTION DB?"],
  ];
  for (const [sessionId, question] of fresh) {
    const reply = ask.execute({ question }, { sessionId, toolCallId: "1" });
    const first = await Promise.race([reply, nextQuestion(channel)]);
    assert.equal(typeof first, "object", `answered at once with ${JSON.stringify(first)}`);
    const asked = first as HumanQuestion;
    assert.equal(asked.question, question);
    assert.equal(asked.sessionId, sessionId);
    assert.equal(await channel.answer(asked.id, "NO"), true);
    assert.equal(await reply, "NO");
  }

  // A tool-call id longer than Deno KV allows in a key still works.
  const long = { sessionId: "s".repeat(3000), toolCallId: "call".repeat(1000) };
  const longReply = ask.execute(staging, long);
  assert.equal(await channel.answer((await nextQuestion(channel)).id, "fine"), true);
  assert.equal(await longReply, "fine");
  assert.equal(await ask.execute(staging, long), "fine");
  await channel.close();
  kv.close();
  await store.dispose();
});

Deno.test("a withdrawn question is asked again when its call is re-run; a cancel stands", async () => {
  const store = await tempStore();
  const input = { question: "Rotate the keys?" };
  const call = { sessionId: "s", toolCallId: "call_9" };

  // The first process times out on the question, then shuts down.
  const firstKv = await Deno.openKv(store.path);
  const first = new DenoKvQuestionChannel(firstKv, { prefix: ["t"] });
  await assert.rejects(
    askHuman(first, { timeoutMs: 30 }).execute(input, call),
    /did not answer within 30 ms/,
  );
  await first.close();
  firstKv.close();

  const kv = await Deno.openKv(store.path);
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"] });
  const rerun = askHuman(channel).execute(input, call);
  const seen = await Promise.race([rerun.catch((error) => error), nextQuestion(channel)]);
  assert.ok(!(seen instanceof Error), `the re-run failed at once: ${seen}`);
  const asked = seen as HumanQuestion;
  assert.equal(asked.question, input.question);
  assert.equal(await channel.answer(asked.id, "rotated"), true);
  assert.equal(await rerun, "rotated");
  assert.equal(await askHuman(channel).execute(input, call), "rotated");

  const cancelled = { sessionId: "s", toolCallId: "call_10" };
  const refused = askHuman(channel).execute(input, cancelled);
  assert.equal(await channel.cancel((await nextQuestion(channel)).id, "not now"), true);
  const stood = /The operator cancelled the question \(not now\)/;
  await assert.rejects(refused, stood);
  await assert.rejects(askHuman(channel).execute(input, cancelled), stood);
  assert.deepEqual(await channel.pending, []);
  await channel.close();
  kv.close();
  await store.dispose();
});

Deno.test("an answer accepted before the asking call aborts is the outcome, not lost", async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  // No polling, and another process answers: the asker hears nothing of the answer before the
  // abort, which then finds the question already answered.
  const asker = new DenoKvQuestionChannel(kv, { prefix: ["peers"], pollMs: Infinity });
  const controller = new AbortController();
  const outcome = asker.ask(request("Proceed?"), { signal: controller.signal });
  assert.deepEqual(await peer("answer", store.path), { question: "Proceed?", answered: true });
  controller.abort(new DOMException("No answer in time.", "TimeoutError"));
  assert.deepEqual(await outcome, { status: "answered", answer: "peer saw: Proceed?" });
  assert.deepEqual(await asker.pending, []);
  await asker.close();
  kv.close();
  await store.dispose();
});

Deno.test("answers up to MAX_ANSWER_LENGTH fit beside the largest question; longer ones are refused", async () => {
  const kv = await Deno.openKv(":memory:");
  const channel = new DenoKvQuestionChannel(kv);
  // The largest question askHuman lets through, in characters that take two bytes each.
  const wide = (length: number) => "€".repeat(length);
  const input = {
    question: wide(4000),
    options: [1, 2, 3, 4].map((n) => ({ label: `${n}${wide(99)}`, description: wide(300) })),
  };
  const ids = { sessionId: wide(256), runId: wide(256), toolCallId: wide(256) };
  const reply = askHuman(channel).execute(input, ids);
  const question = await nextQuestion(channel);
  const tooLong = wide(MAX_ANSWER_LENGTH + 1);
  await assert.rejects(async () => await channel.answer(question.id, tooLong), RangeError);
  await assert.rejects(async () => await channel.cancel(question.id, tooLong), RangeError);
  assert.deepEqual((await channel.pending).map((q) => q.id), [question.id]);
  const longest = wide(MAX_ANSWER_LENGTH);
  assert.equal(await channel.answer(question.id, longest), true);
  assert.equal(await reply, longest);
  await channel.close();
  kv.close();
});

Deno.test("a long wait holds one watch callback, not one per poll", {
  timeout: 20_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  let thens = 0;
  /** Counts every callback attached to a watch read. */
  class CountedPromise<T> extends Promise<T> {
    override then<A = T, B = never>(
      onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ): Promise<A | B> {
      thens++;
      return super.then(onFulfilled, onRejected);
    }
  }
  let polls = 0;
  const polled = Promise.withResolvers<void>();
  const counted = new Proxy(kv, {
    get(target, property) {
      if (property === "watch") {
        return (keys: Deno.KvKey[]) => {
          const reader = target.watch(keys).getReader();
          return {
            getReader: () => ({
              read: () => CountedPromise.resolve(reader.read()),
              cancel: () => reader.cancel(),
            }),
          };
        };
      }
      if (property === "get") {
        return (key: Deno.KvKey) => {
          // The poll reads the change markers.
          if (key.at(-2) === "changed" && ++polls === 50) polled.resolve();
          return target.get(key);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const channel = new DenoKvQuestionChannel(counted, { pollMs: 1 });
  const outcome = channel.ask(request("Still there?"));
  await polled.promise;
  assert.ok(thens <= 6, `${thens} callbacks on watch reads after 50 polls`);
  await channel.close();
  assert.equal((await outcome).status, "closed");
  kv.close();
});

/** Runs tests/fixtures/human_kv_peer.ts in a separate Deno process and parses what it prints. */
async function peer(...args: string[]): Promise<unknown> {
  const script = new URL("./fixtures/human_kv_peer.ts", import.meta.url);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", script.pathname, ...args],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test("a resolved question is kept for retainMs", async () => {
  const kv = await Deno.openKv(":memory:");
  const expiries: (number | undefined)[] = [];
  const channel = new DenoKvQuestionChannel(recordExpiries(kv, expiries), {
    prefix: ["t"],
    retainMs: 60_000,
  });
  const asking = channel.ask(request("Ship it?"));
  const question = await nextQuestion(channel);
  expiries.length = 0;
  assert.equal(await channel.answer(question.id, "yes"), true);
  assert.deepEqual(await asking, { status: "answered", answer: "yes" });
  // The record and its entry in the history index expire together; the change marker stays.
  assert.deepEqual(expiries, [60_000, 60_000, undefined]);
  await channel.close();
  kv.close();
});

Deno.test("an unkeyed question whose asker died is withdrawn once its lease runs out", {
  timeout: 20_000,
}, async () => {
  const store = await tempStore();
  // The asking process: its store handle closes without the channel closing, as in a crash.
  const crashing = await Deno.openKv(store.path);
  // Leases run on the test's clock: their windows do not depend on the machine's load.
  const clock = new FakeClock();
  const options = { prefix: ["t"], leaseMs: 300, pollMs: 20, clock };
  const asker = new DenoKvQuestionChannel(crashing, options);
  const lost = asker.ask(request("Anyone?"));
  const kept = asker.ask(request("Keyed?", { key: "call_1" }));
  const kv = await Deno.openKv(store.path);
  const operator = new DenoKvQuestionChannel(kv, options);
  await waitFor(async () => (await operator.pending).length === 2, "both questions");
  const asked = await operator.pending;
  const orphan = asked.find((q) => q.question === "Anyone?")!;
  const keyed = asked.find((q) => q.question === "Keyed?")!;
  // A live asker renews its lease: the question outlives several lease periods.
  for (let i = 0; i < 10; i++) {
    await clock.advance(100);
    // The renewal the timer began is stored before the time moves on.
    await waitFor(
      async () => await leaseEnd(kv, orphan.id) > clock.now(),
      "the renewal",
    );
  }
  assert.equal((await operator.get(orphan.id))?.status, "pending");
  crashing.close();
  await Promise.allSettled([lost, kept]);
  await clock.advance(300);
  assert.equal((await operator.pending).length, 1, "the orphan is withdrawn");
  assert.deepEqual((await operator.pending).map((q) => q.id), [keyed.id]);
  const record = await operator.get(orphan.id);
  assert.equal(
    record?.status === "cancelled" && record.reason,
    "withdrawn: the asking call went away",
  );
  assert.equal(await operator.answer(orphan.id, "hello?"), false);
  assert.equal(await operator.answer(keyed.id, "yes"), true);
  await operator.close();
  await asker.close();
  kv.close();
  await store.dispose();
});

Deno.test(
  "an answer to an orphaned question is refused and withdraws it",
  { timeout: 20_000 },
  async () => {
    const store = await tempStore();
    const crashing = await Deno.openKv(store.path);
    const clock = new FakeClock();
    const asker = new DenoKvQuestionChannel(crashing, { prefix: ["t"], leaseMs: 200, clock });
    const lost = asker.ask(request("Anyone?"));
    const kv = await Deno.openKv(store.path);
    const operator = new DenoKvQuestionChannel(kv, { prefix: ["t"], leaseMs: 200, clock });
    const question = await nextQuestion(operator);
    crashing.close();
    await lost.catch(() => {});
    await clock.advance(200);
    // Straight to answer, without a listing first: the lease is judged there too.
    assert.equal(await operator.answer(question.id, "hello?"), false);
    const record = (await kv.get<{ record: { status: string } }>(["t", "q", question.id])).value;
    assert.equal(record?.record.status, "cancelled");
    assert.throws(() => new DenoKvQuestionChannel(kv, { leaseMs: 0 }), SetupError);
    await operator.close();
    await asker.close();
    kv.close();
    await store.dispose();
  },
);

Deno.test("a resolved question re-attaches by key only within reattachMs, across restarts", {
  timeout: 20_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  // The window is decided by the test's clock, not by how loaded the machine is.
  const clock = new FakeClock();
  const options = { prefix: ["t"], reattachMs: 30, clock };
  const channel = new DenoKvQuestionChannel(kv, options);
  const first = channel.ask(request("Ship it?", { key: "k", kind: "approval" }));
  const question = await nextQuestion(channel);
  assert.equal(question.kind, "approval");
  assert.equal(await channel.answer(question.id, "Approve"), true);
  assert.deepEqual(await first, { status: "answered", answer: "Approve", decision: "approve" });
  await channel.close();
  // A restarted process, within the window (at its very end), re-attaches.
  await clock.advance(30);
  const restarted = new DenoKvQuestionChannel(kv, options);
  assert.deepEqual(await restarted.ask(request("Ship it?", { key: "k", kind: "approval" })), {
    status: "answered",
    answer: "Approve",
    decision: "approve",
  });
  assert.deepEqual(await restarted.pending, []);
  await clock.advance(1);
  const later = restarted.ask(request("Ship it?", { key: "k", kind: "approval" }));
  const again = await nextQuestion(restarted);
  assert.notEqual(again.id, question.id);
  await restarted.answer(again.id, "Deny");
  assert.deepEqual(await later, { status: "answered", answer: "Deny", decision: "deny" });
  assert.throws(() => new DenoKvQuestionChannel(kv, { reattachMs: 1.5 }), SetupError);
  await restarted.close();
  kv.close();
});

Deno.test("resolved() lists every process's resolved questions, newest first, from an index", {
  timeout: 60_000,
}, async () => {
  const store = await tempStore();
  const kv = await Deno.openKv(store.path);
  const other = await Deno.openKv(store.path);
  const lists: Deno.KvListOptions[] = [];
  // Records how the channel lists, to show that it reads the index, bounded, not everything.
  const spied = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          // resolved() reads the index from its newest end; a watch reads it from a start.
          const whole = "prefix" in selector && !("start" in selector);
          if (whole && selector.prefix.includes("resolved")) lists.push(options!);
          return target.list(selector, options);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // The order is by resolution time: on the test's clock, moved on between them, not the machine's.
  const clock = new FakeClock();
  const channel = new DenoKvQuestionChannel(spied, { prefix: ["t"], clock });
  const rival = new DenoKvQuestionChannel(other, { prefix: ["t"], clock });
  assert.deepEqual(await channel.resolved(10), []);
  const asks = ["a?", "b?", "c?"].map((q, i) => channel.ask(request(q, { key: `call_${i}` })));
  await waitFor(async () => (await channel.pending).length === 3, "three questions");
  const byText = new Map((await channel.pending).map((q) => [q.question, q]));
  const [a, b, c] = ["a?", "b?", "c?"].map((text) => byText.get(text)!);
  assert.equal(await rival.answer(a.id, "ay"), true);
  await clock.advance(5);
  assert.equal(await channel.cancel(b.id, "not today"), true);
  await clock.advance(5);
  const aborter = new AbortController();
  const withdrawn = rival.ask(request("d?"), { signal: aborter.signal });
  await waitFor(async () => (await channel.pending).length === 2, "the fourth question");
  aborter.abort();
  await assert.rejects(withdrawn);

  const list = await channel.resolved(10);
  assert.deepEqual(list.map((r) => r.question.question), ["d?", "b?", "a?"]);
  assert.deepEqual(list.map((r) => r.status), ["cancelled", "cancelled", "answered"]);
  assert.match(list[0].status === "cancelled" ? list[0].reason : "", /^withdrawn: /);
  assert.equal(list[1].status === "cancelled" && list[1].reason, "not today");
  assert.equal(list[2].status === "answered" && list[2].answer, "ay");
  assert.deepEqual(await rival.resolved(10), list);
  assert.deepEqual((await channel.resolved(2)).map((r) => r.question.id), [
    list[0].question.id,
    b.id,
  ]);
  assert.deepEqual((await channel.resolved(500)).length, 3);
  assert.deepEqual(lists.at(-1), { reverse: true, limit: 100 });
  assert.deepEqual(lists.at(-2), { reverse: true, limit: 2 });
  await assert.rejects(() => channel.resolved(0), RangeError);
  // A restarted process on the same store has the same history.
  await channel.close();
  const again = new DenoKvQuestionChannel(kv, { prefix: ["t"], clock });
  assert.deepEqual(await again.resolved(10), list);
  await clock.advance(5);
  assert.equal(await again.answer(c.id, "see"), true);
  assert.equal((await again.resolved(1))[0].question.id, c.id);
  await again.close();
  await rival.close();
  await Promise.allSettled(asks);
  kv.close();
  other.close();
  await store.dispose();
});

Deno.test("caps count the questions of every object on the store", {
  timeout: 20_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  const limits = { maxPending: 4, maxPendingPerSession: 2 };
  const channel = new DenoKvQuestionChannel(kv, { prefix: ["t"], limits });
  // Another object on the store counts the same questions.
  const other = new DenoKvQuestionChannel(kv, { prefix: ["t"], limits });
  const asks = [1, 2, 3, 4].map((i) => channel.ask(request(`q${i}?`, { sessionId: `s${i}` })));
  await waitFor(async () => (await other.pending).length === 4, "four questions");
  await assert.rejects(other.ask(request("fifth?")), TooManyQuestionsError);
  assert.throws(() => new DenoKvQuestionChannel(kv, { limits: { maxPending: -1 } }), SetupError);
  assert.throws(() => new DenoKvQuestionChannel(kv, { expireMs: 0 }), SetupError);
  await channel.close();
  await other.close();
  await Promise.all(asks);
  kv.close();
});

Deno.test("concurrent asks commit once each: no shared counter to retry on", {
  timeout: 20_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  let commits = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            commits++;
            return commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const channel = new DenoKvQuestionChannel(counted, { prefix: ["t"] });
  const asks = Array.from(
    { length: 50 },
    (_, i) => channel.ask(request(`q${i}?`, { key: `call_${i}`, sessionId: `s${i}` })),
  );
  await waitFor(async () => (await channel.pending).length === 50, "fifty questions");
  assert.equal(commits, 50, "one commit per ask");
  // They are delivered in the order they were asked.
  const feed = channel.questions();
  for (let i = 0; i < 50; i++) assert.equal((await feed.next()).value?.question, `q${i}?`);
  await feed.return!();
  await channel.close();
  await Promise.all(asks);
  kv.close();
});

Deno.test("waiting asks cost one read of the markers per poll, however many wait", {
  timeout: 20_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  let reads = 0;
  let watches = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      if (property === "get" || property === "getMany" || property === "list") {
        return (...args: unknown[]) => {
          reads++;
          return value.apply(target, args);
        };
      }
      if (property === "watch") {
        return (...args: unknown[]) => {
          watches++;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  const clock = new FakeClock();
  const channel = new DenoKvQuestionChannel(counted, { prefix: ["t"], pollMs: 1000, clock });
  const asks = Array.from(
    { length: 100 },
    (_, i) => channel.ask(request(`q${i}?`, { key: `k${i}` })),
  );
  await waitFor(async () => (await kv.get(["t", "count"])).value !== null, "the asks stored");
  await waitFor(async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: ["t", "pending"] })) n++;
    return n === 100;
  }, "a hundred questions");
  // Let every ask reach its wait.
  await clock.advance(0);
  reads = 0;
  for (let poll = 0; poll < 10; poll++) await clock.advance(1000);
  assert.ok(reads <= 20, `${reads} reads for 10 polls with 100 waiting asks`);
  assert.equal(watches, 1, "one watch for all the waits");
  await channel.close();
  assert.deepEqual((await Promise.all(asks))[0], { status: "closed", reason: "channel closed" });
  kv.close();
});

Deno.test(
  "a keyed question nobody waits on expires after expireMs; until then a retry re-attaches",
  {
    timeout: 20_000,
  },
  async () => {
    const kv = await Deno.openKv(":memory:");
    const clock = new FakeClock();
    const options = { prefix: ["t"], expireMs: 60_000, clock };
    const asker = new DenoKvQuestionChannel(kv, options);
    const first = asker.ask(request("Still wanted?", { key: "call_1", sessionId: "s" }));
    const question = await nextQuestion(asker);
    // The asker waits: its lease is renewed, however long it waits.
    for (let i = 0; i < 6; i++) await clock.advance(30_000);
    const operator = new DenoKvQuestionChannel(kv, options);
    assert.equal((await operator.get(question.id))?.status, "pending");
    // The asker goes away; its keyed question stays for a retry within expireMs.
    await asker.close();
    assert.equal((await first).status, "closed");
    await clock.advance(59_000);
    assert.deepEqual((await operator.pending).map((q) => q.id), [question.id]);
    const retry = new DenoKvQuestionChannel(kv, options);
    const retried = retry.ask(request("Still wanted?", { key: "call_1", sessionId: "s" }));
    await waitFor(
      async () => await leaseEnd(kv, question.id) > clock.now() + 59_000,
      "the lease renewed",
    );
    await retry.close();
    assert.equal((await retried).status, "closed");
    // Nobody re-attaches: once expireMs has passed, the question is withdrawn and frees its place.
    await clock.advance(60_000);
    assert.deepEqual(await operator.pending, []);
    const record = await operator.get(question.id);
    assert.equal(
      record?.status === "cancelled" && record.reason,
      "withdrawn: no call waited for the answer any more",
    );
    assert.equal(await operator.answer(question.id, "too late"), false);
    assert.equal((await kv.get<Deno.KvU64>(["t", "count"])).value?.value, 0n);
    // The same call now asks afresh.
    const again = operator.ask(request("Still wanted?", { key: "call_1", sessionId: "s" }));
    const fresh = await nextQuestion(operator);
    assert.notEqual(fresh.id, question.id);
    await operator.answer(fresh.id, "yes");
    assert.deepEqual(await again, { status: "answered", answer: "yes" });
    await operator.close();
    kv.close();
  },
);

questionChannelContract({
  name: "DenoKvQuestionChannel",
  peer: true,
  create: async ({ clock, reattachMs, limits }) => {
    const store = await tempStore();
    const kv = await Deno.openKv(store.path);
    // The peer is another channel object on the store, as another process would open it.
    const channel = new DenoKvQuestionChannel(kv, { clock, reattachMs, limits });
    const peer = new DenoKvQuestionChannel(kv, { clock, reattachMs, limits });
    return {
      channel,
      peer,
      close: async () => {
        await Promise.all([channel.close(), peer.close()]);
        kv.close();
        await store.dispose();
      },
    };
  },
  test: Deno.test,
});
