/**
 * Polls `condition` until it holds. Rejects after `timeoutMs` with `what` in the message, so a
 * regression fails with a clear message instead of hanging the test run. The default is long
 * (30 s): it guards against a hang, and must never be reached by a slow but working run on a
 * busy machine. Never use it to show that something does not happen.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
