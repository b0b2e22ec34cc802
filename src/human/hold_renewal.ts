import { holdMs, type LifecycleSettings, renew } from "./question_operations.ts";
import type { QuestionStore } from "./question_store.ts";
import { drive } from "./steps.ts";

/**
 * Renews `holder`'s hold on question `id` three times per hold length while an ask waits, so
 * that the question outlives no asker by more than a hold; returns the function that stops it.
 * A hold without end (`Infinity`) needs no renewal.
 */
export function keepHolding(
  store: QuestionStore,
  id: string,
  holder: string,
  keyed: boolean,
  settings: LifecycleSettings,
): () => void {
  const everyMs = holdMs(keyed ? { key: "" } : {}, settings) / 3;
  let stop = () => {};
  const next = () => {
    stop = settings.clock.setTimer(() => {
      const renewed = store.transact((tx) => drive(renew(tx, id, holder, settings)));
      // A failed renewal is tried again at the next tick.
      if (renewed instanceof Promise) renewed.catch(() => {});
      next();
    }, everyMs);
  };
  if (Number.isFinite(everyMs)) next();
  return () => stop();
}
