// The order of tool calls that a framework starts as they arrive: `parallel: false` tools are
// barriers, as in `runToolCalls`.

/**
 * Orders calls as `runToolCalls` does, but as they arrive: a parallel call waits only for a
 * barrier started before it; a barrier waits for every call started before it and holds back
 * later ones until it ends.
 */
export function callTurns(): <T>(parallel: boolean, run: () => Promise<T>) => Promise<T> {
  let gate: Promise<unknown> = Promise.resolve();
  const running = new Set<Promise<unknown>>();
  return <T>(parallel: boolean, run: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    if (parallel) {
      result = gate.then(run);
    } else {
      const earlier = [...running, gate];
      result = Promise.allSettled(earlier).then(run);
      gate = result.catch(() => {});
    }
    running.add(result);
    const done = () => running.delete(result);
    result.then(done, done);
    return result;
  };
}
