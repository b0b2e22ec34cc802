import type { MaybePromise } from "./question_store.ts";

// The lifecycle's operations are written once as generators that `yield*` each store call
// through `value()`; `drive` runs them at once over a store that answers at once (memory, so
// that its channel stays synchronous) and awaits only what is a promise (a durable store).

/** An operation written as steps: a generator whose `yield*`s of {@linkcode value} read. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** Hands back `result`, awaited by {@linkcode drive} when it is a promise. */
export function* value<T>(result: MaybePromise<T>): Steps<T> {
  return (yield result) as T;
}

/** Runs `steps`: synchronously while every value is at hand, as a promise from the first that is not. */
export function drive<T>(steps: Steps<T>): MaybePromise<T> {
  let step = steps.next();
  while (!step.done) {
    if (step.value instanceof Promise) return finish(steps, step.value);
    step = steps.next(step.value);
  }
  return step.value;
}

/** Runs `steps` over a store that answers at once (a Durable Object's SQL): to their end, now. */
export function runNow<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next(step.value);
  return step.value;
}

async function finish<T>(steps: Steps<T>, first: Promise<unknown>): Promise<T> {
  let pending = first;
  for (;;) {
    let step: IteratorResult<unknown, T>;
    let settled: { value: unknown } | { error: unknown };
    try {
      settled = { value: await pending };
    } catch (error) {
      settled = { error };
    }
    step = "value" in settled ? steps.next(settled.value) : steps.throw(settled.error);
    while (!step.done && !(step.value instanceof Promise)) step = steps.next(step.value);
    if (step.done) return step.value;
    pending = step.value as Promise<unknown>;
  }
}
