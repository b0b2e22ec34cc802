// The access log's lines on stdout without ever holding up the service. `console.log` writes
// synchronously: once the reader falls behind (a busy log collector, a full pipe), every request
// waited for it, and under load the log alone cut the service's rate by four fifths. Here lines
// wait up to `delayMs` to go out together in one asynchronous write, one write at a time (those
// that come during a write go in the next), or go at once when `flushChars` of them wait; past
// `maxPendingChars` waiting, new lines are dropped and counted rather than kept.
//
// What a busy service pays is mostly per write (its timer, the text made bytes, the operation)
// and per line: at a write every 10 ms, lines kept apart and joined for each, the log took a
// tenth of the service's time; written every 100 ms, and added to one text as they come, a fifth
// of that.

/** Lines written in the background, in order. */
export interface LineWriter {
  /** Queues `line` (without its newline). */
  write(line: string): void;
  /** Resolves once every line queued so far has been written (or failed to be). */
  flush(): Promise<void>;
}

/** How {@linkcode lineWriter} bounds what waits, and reports what it drops. */
export interface LineWriterOptions {
  /** The most characters waiting to be written (default 1 MiB); lines beyond are dropped. */
  maxPendingChars?: number;
  /** Told, after a write, how many lines were dropped since the last report. */
  onDropped: (count: number) => void;
  /** How long a line may wait for others to go out with (default 100 ms). */
  delayMs?: number;
  /** How many characters waiting make a write at once, without waiting longer (default 256 Ki). */
  flushChars?: number;
}

/** A {@linkcode LineWriter} onto `write` (as `Deno.stdout.write`: may write part of `bytes`). */
export function lineWriter(
  write: (bytes: Uint8Array) => Promise<number>,
  { maxPendingChars = 1 << 20, onDropped, delayMs = 100, flushChars = 1 << 18 }: LineWriterOptions,
): LineWriter {
  const encoder = new TextEncoder();
  /** The waiting lines, each with its newline. */
  let pending = "";
  let pendingLines = 0;
  let dropped = 0;
  let writing: Promise<void> | undefined;
  let scheduled: ReturnType<typeof setTimeout> | undefined;

  async function writeAll(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) at += await write(bytes.subarray(at));
  }

  /** Writes the waiting lines in `delayMs`, unless a write runs or is already due. */
  function schedule(): void {
    if (writing || scheduled !== undefined) return;
    scheduled = setTimeout(pump, delayMs);
    // A line waiting must not keep the process alive.
    Deno.unrefTimer(scheduled);
  }

  function pump(): void {
    clearTimeout(scheduled);
    scheduled = undefined;
    if (writing || pendingLines === 0) return;
    const batch = pending;
    const lines = pendingLines;
    pending = "";
    pendingLines = 0;
    writing = writeAll(encoder.encode(batch))
      // A closed stdout: these lines are lost, as later ones will be; nothing else fails.
      .catch(() => void (dropped += lines))
      .finally(() => {
        writing = undefined;
        if (dropped > 0) {
          onDropped(dropped);
          dropped = 0;
        }
        if (pendingLines > 0) schedule();
      });
  }

  return {
    write(line) {
      if (pending.length + line.length + 1 > maxPendingChars) {
        dropped++;
        return;
      }
      pending += `${line}\n`;
      pendingLines++;
      if (pending.length >= flushChars) pump();
      else schedule();
    },
    async flush() {
      while (pendingLines > 0 || writing) {
        pump();
        await writing;
      }
    },
  };
}
