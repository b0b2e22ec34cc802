import assert from "node:assert/strict";
import type { QuestionChannel } from "../../mod.ts";
import type { QuestionRequest } from "../../src/human/mod.ts";
import { waitFor } from "./wait.ts";

const request = (question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest => ({
  question,
  options: [],
  multiSelect: false,
  ...extra,
});

/**
 * What every channel must do with outcomes (issue 18, item 7), on `asker` and an `operator`
 * channel on the same store (another process, for a durable one): an approval's decision and a
 * withdrawal are fields of the record, never read from a text; the same answer or cancel sent
 * again (a retry after a response lost to a crash) succeeds, and a different one does not.
 */
export async function checkOutcomesAsData(
  asker: QuestionChannel,
  operator: QuestionChannel,
): Promise<void> {
  const next = async (question: string) => {
    let id: string | undefined;
    await waitFor(async () => {
      id = (await operator.pending).find((q) => q.question === question)?.id;
      return id !== undefined;
    }, question);
    return id!;
  };

  // A free-text answer, sent twice: both succeed; another answer is a conflict.
  const plain = asker.ask(request("Ship it?", { key: "plain" }));
  const plainId = await next("Ship it?");
  assert.equal(await operator.answer(plainId, "Yes"), true);
  assert.equal(await operator.answer(plainId, "Yes"), true, "the retried answer succeeds");
  assert.equal(await operator.answer(plainId, "No"), false);
  assert.deepEqual(await plain, { status: "answered", answer: "Yes" });
  const answered = await operator.get(plainId);
  assert.equal(answered?.status === "answered" && answered.answer, "Yes");
  assert.equal(answered?.status === "answered" && answered.decision, undefined);

  // An approval's decision and reason are fields, through ask and the record.
  const approval = asker.ask(request("Run deploy?", { key: "approval", kind: "approval" }));
  const approvalId = await next("Run deploy?");
  const denial = { decision: "deny", reason: "Deny: frozen" } as const;
  assert.equal(await operator.answer(approvalId, denial), true);
  assert.equal(await operator.answer(approvalId, denial), true, "the retried decision succeeds");
  assert.equal(await operator.answer(approvalId, { decision: "approve" }), false);
  assert.deepEqual(await approval, {
    status: "answered",
    answer: "Deny",
    decision: "deny",
    reason: "Deny: frozen",
  });
  const decided = await operator.get(approvalId);
  assert.ok(decided?.status === "answered");
  assert.equal(decided.decision, "deny");
  assert.equal(decided.reason, "Deny: frozen");

  // An operator's cancel is no withdrawal, whatever its reason says.
  const cancelled = asker.ask(request("Rotate keys?", { key: "cancel" }));
  const cancelledId = await next("Rotate keys?");
  assert.equal(await operator.cancel(cancelledId, "withdrawn: by me"), true);
  assert.equal(await operator.cancel(cancelledId, "withdrawn: by me"), true, "a retried cancel");
  assert.equal(await operator.cancel(cancelledId, "other"), false);
  assert.equal(await operator.answer(cancelledId, "withdrawn: by me"), false);
  assert.deepEqual(await cancelled, { status: "cancelled", reason: "withdrawn: by me" });
  const record = await operator.get(cancelledId);
  assert.ok(record?.status === "cancelled");
  assert.equal(record.withdrawn, undefined);

  // A withdrawal is one as data, and a cancel with its very reason is not a retry of it.
  const giveUp = new AbortController();
  const withdrawn = asker.ask(request("Still there?", { key: "gone" }), { signal: giveUp.signal });
  const withdrawnId = await next("Still there?");
  giveUp.abort(new DOMException("gave up", "TimeoutError"));
  await assert.rejects(withdrawn);
  await waitFor(async () => (await operator.get(withdrawnId))?.status === "cancelled", "withdrawn");
  const gone = await operator.get(withdrawnId);
  assert.ok(gone?.status === "cancelled");
  assert.equal(gone.withdrawn, true);
  assert.equal(await operator.cancel(withdrawnId, gone.reason), false);
  assert.equal(await operator.answer(withdrawnId, "Yes"), false);
  const history = (await operator.resolved?.(10)) ?? [];
  assert.deepEqual(
    history.map((r) =>
      r.status === "cancelled" ? `cancelled${r.withdrawn ? " (withdrawn)" : ""}` : r.status
    ),
    ["cancelled (withdrawn)", "cancelled", "answered", "answered"],
  );
}
