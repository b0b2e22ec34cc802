import assert from "node:assert/strict";
import { MemoryQuestionStore, StoreQuestionChannel } from "../src/human/mod.ts";
import { FakeClock } from "../src/testing/mod.ts";
import { questionChannelContract } from "../src/testing/question_channel_contract.ts";

// StoreQuestionChannel as someone writing a store of their own uses it: with leases, so that
// questions outlive their asker's channel object, and two objects on one store, as two
// processes would share a Redis or PostgreSQL store.

const options = { leaseMs: 30_000, expireMs: 60 * 60_000 };

questionChannelContract({
  name: "StoreQuestionChannel over MemoryQuestionStore",
  peer: true,
  create: ({ clock, reattachMs, limits }) => {
    const store = new MemoryQuestionStore();
    const channel = new StoreQuestionChannel(store, { ...options, clock, reattachMs, limits });
    const peer = new StoreQuestionChannel(store, { ...options, clock, reattachMs, limits });
    return {
      channel,
      peer,
      close: async () => {
        await Promise.all([channel.close(), peer.close()]);
      },
    };
  },
  test: Deno.test,
});

Deno.test("a question whose asker stopped renewing its hold is withdrawn, and answers refused", {
  timeout: 10_000,
}, async () => {
  // The asker's renewals run on a clock that never moves, as if its process had died; the
  // operator's clock moves on.
  const store = new MemoryQuestionStore();
  const asker = new StoreQuestionChannel(store, { ...options, clock: new FakeClock() });
  const clock = new FakeClock();
  const operator = new StoreQuestionChannel(store, { ...options, clock });
  const asking = asker.ask({ question: "Still there?", options: [], multiSelect: false });
  const [question] = await operator.pending;
  await clock.advance(options.leaseMs - 1);
  assert.equal((await operator.get(question.id))?.status, "pending", "within its hold");
  await clock.advance(1);
  assert.deepEqual(await operator.pending, []);
  assert.equal(await operator.answer(question.id, "yes"), false);
  const record = await operator.get(question.id);
  assert.equal(
    record?.status === "cancelled" && record.reason,
    "withdrawn: the asking call went away",
  );
  assert.deepEqual(await asking, {
    status: "cancelled",
    reason: "withdrawn: the asking call went away",
  });
  await Promise.all([asker.close(), operator.close()]);
});
