import type { Clock } from "../clock.ts";
import type { QuestionOutcome, QuestionRecord, QuestionRequest } from "./question.ts";
import { newQuestion, reattaches, resolution, WITHDRAWN } from "./question_lifecycle.ts";
import { type CapReached, capReached, type QuestionLimits } from "./question_limits.ts";
import type { QuestionTransaction, StoredQuestion } from "./question_store.ts";
import { type Steps, value } from "./steps.ts";

// The lifecycle's operations on one question, each run inside a store's transaction: asking or
// re-attaching, holding, leaving, resolving, and withdrawing a question whose askers are gone.
// `StoreQuestionChannel` composes them into `ask`; a Durable Object runs them over its storage.

/** What the operations need to know besides the store. */
export interface LifecycleSettings {
  /** How long after its resolution a question is still re-attached to by key. */
  reattachMs: number;
  /** The caps on pending questions. */
  limits: Required<QuestionLimits>;
  /** How long a hold on a question without a key lasts from its last renewal. */
  leaseMs: number;
  /** How long a hold on a question with a key lasts from its last renewal. */
  expireMs: number;
  /** The time of records and holds. */
  clock: Clock;
  /** Whether asks of the caller's own wait on `id`: then it is alive whatever its holds say. */
  waitedOn?(id: string): boolean;
}

/** How long a hold on `stored` lasts. */
export function holdMs(stored: { key?: string }, settings: LifecycleSettings): number {
  return stored.key === undefined ? settings.leaseMs : settings.expireMs;
}

/** The holds of `leases` still live at `now`, leaving out `except`. */
function liveHolds(
  leases: Readonly<Record<string, number>>,
  now: number,
  except?: string,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(leases).filter(([holder, end]) => holder !== except && end > now),
  );
}

/** Whether `stored` is pending with no asker left: its holds lapsed, and nobody here waits on it. */
export function lapsed(stored: StoredQuestion, settings: LifecycleSettings): boolean {
  return stored.record.status === "pending" &&
    !settings.waitedOn?.(stored.record.question.id) &&
    Object.keys(liveHolds(stored.leases, settings.clock.now())).length === 0;
}

/** Withdraws `stored` if it is pending, with `reason`; what it is then. */
function withdraw(
  tx: QuestionTransaction,
  stored: StoredQuestion,
  reason: string,
  now: number,
): StoredQuestion {
  const next = resolution(
    stored.record,
    { status: "cancelled", reason },
    new Date(now).toISOString(),
    true,
  );
  if ("done" in next) return stored;
  const updated = { ...stored, record: next.record, leases: {} };
  tx.update(updated);
  return updated;
}

/** `stored` as it stands once withdrawn if its askers are gone (see {@linkcode lapsed}). */
export function reaped(
  tx: QuestionTransaction,
  stored: StoredQuestion,
  settings: LifecycleSettings,
): StoredQuestion {
  if (!lapsed(stored, settings)) return stored;
  const reason = stored.key === undefined ? WITHDRAWN.lapsed : WITHDRAWN.expired;
  return withdraw(tx, stored, reason, settings.clock.now());
}

/** Reads question `id`, withdrawing it first if its askers are gone. */
export function* current(
  tx: QuestionTransaction,
  id: string,
  settings: LifecycleSettings,
): Steps<StoredQuestion | undefined> {
  const stored = yield* value(tx.get(id));
  return stored && reaped(tx, stored, settings);
}

/**
 * Asks `request` for `holder`: re-attaches to the question its key points to when it may (see
 * `reattaches`), holding it if it is pending; otherwise stores a new question held by `holder`,
 * unless a cap is reached (then stores nothing). What the question then is, or the cap.
 */
export function* open(
  tx: QuestionTransaction,
  request: QuestionRequest,
  holder: string,
  settings: LifecycleSettings,
): Steps<Omit<StoredQuestion, "seq"> | { full: CapReached }> {
  const now = settings.clock.now();
  if (request.key !== undefined) {
    const found = yield* value(tx.byKey(request.key));
    const known = found && reaped(tx, found, settings);
    if (
      known &&
      reattaches(known.record, request, settings.reattachMs, now)
    ) {
      return known.record.status === "pending" ? hold(tx, known, holder, settings) : known;
    }
  }
  const { pending, inSession } = yield* value(tx.counts(request.sessionId));
  const full = capReached(settings.limits, pending, inSession);
  if (full) return { full };
  const key = request.key === undefined ? {} : { key: request.key };
  const stored = {
    record: { status: "pending", question: newQuestion(request, now) } as const,
    ...key,
    leases: { [holder]: now + holdMs(key, settings) },
  };
  tx.insert(stored);
  return stored;
}

/** Renews `holder`'s hold on pending `stored` from now, dropping lapsed holds. */
function hold(
  tx: QuestionTransaction,
  stored: StoredQuestion,
  holder: string,
  settings: LifecycleSettings,
): StoredQuestion {
  const now = settings.clock.now();
  const leases = liveHolds(stored.leases, now, holder);
  leases[holder] = now + holdMs(stored, settings);
  const updated = { ...stored, leases };
  tx.update(updated);
  return updated;
}

/** Renews `holder`'s hold on question `id` while it is pending; its record, if any. */
export function* renew(
  tx: QuestionTransaction,
  id: string,
  holder: string,
  settings: LifecycleSettings,
): Steps<QuestionRecord | undefined> {
  const stored = yield* value(tx.get(id));
  if (stored?.record.status !== "pending") return stored?.record;
  return hold(tx, stored, holder, settings).record;
}

/**
 * Ends `holder`'s hold on question `id`, and withdraws the question with `reason` when no other
 * live hold remains (another ask still waits otherwise). Whether it withdrew, and the record as
 * it then is.
 */
export function* leave(
  tx: QuestionTransaction,
  id: string,
  holder: string,
  reason: string,
  settings: LifecycleSettings,
): Steps<{ withdrawn: boolean; record?: QuestionRecord }> {
  const stored = yield* value(tx.get(id));
  if (stored?.record.status !== "pending") return { withdrawn: false, record: stored?.record };
  const now = settings.clock.now();
  const leases = liveHolds(stored.leases, now, holder);
  if (Object.keys(leases).length === 0) {
    return { withdrawn: true, record: withdraw(tx, stored, reason, now).record };
  }
  tx.update({ ...stored, leases });
  return { withdrawn: false, record: stored.record };
}

/**
 * Resolves question `id` with an operator's `outcome` if it is pending; `true` when this call
 * did, or an earlier one gave it the very same outcome. A question whose askers are gone is
 * withdrawn instead, and the call refused.
 */
export function* resolve(
  tx: QuestionTransaction,
  id: string,
  outcome: QuestionOutcome,
  settings: LifecycleSettings,
): Steps<boolean> {
  const stored = yield* current(tx, id, settings);
  if (!stored) return false;
  const now = new Date(settings.clock.now()).toISOString();
  const next = resolution(stored.record, outcome, now);
  if ("done" in next) return next.done;
  tx.update({ ...stored, record: next.record, leases: {} });
  return true;
}
