/**
 * The first line a child process prints on `stdout` (the URL it serves on, without a trailing
 * slash), and a promise that drains the rest, so that the child never blocks on a full pipe.
 * When `stdout` ends first, calls `stop` and throws with what was printed and `errors()`.
 */
export async function firstLineUrl(
  stdout: ReadableStream<Uint8Array>,
  what: string,
  stop: () => Promise<void>,
  errors: () => string = () => "",
): Promise<{ url: string; drained: Promise<void> }> {
  const lines = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) {
      await stop();
      throw new Error(`${what} did not start: ${output}${errors()}`);
    }
    output += value;
  }
  const drained = (async () => {
    while (!(await lines.read()).done) {
      // Discarded.
    }
  })();
  return { url: output.trim().replace(/\/$/, ""), drained };
}
