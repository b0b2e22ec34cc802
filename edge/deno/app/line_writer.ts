// The access log's lines on stdout without ever holding up the service. `console.log` writes
// synchronously: once the reader falls behind (a busy log collector, a full pipe), every request
// waited for it, and under load the log alone cut the service's rate by four fifths. Here lines
// wait up to `delayMs` to go out together in one asynchronous write, one write at a time (those
// that come during a write go in the next), or go at once when `flushBytes` of them wait; past
// `maxPendingChars` waiting, new lines are dropped and counted rather than kept.
//
// Each line is made bytes as it comes, into buffers that are written and then filled again: a
// batch joined into one text and encoded anew each time cost a busy service several times what
// its lines did (a tenth of its time at a write every 10 ms), in the memory it churned.

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
  /** How many bytes waiting make a write at once, without waiting longer (default 256 KiB). */
  flushBytes?: number;
}

/** The size of the buffers lines are encoded into; a longer line gets one of its own. */
const BUFFER_BYTES = 64 * 1024;
/** How many written buffers are kept to be filled again. */
const SPARE_BUFFERS = 8;
const NEWLINE = 10;

/** A {@linkcode LineWriter} onto `write` (as `Deno.stdout.write`: may write part of `bytes`). */
export function lineWriter(
  write: (bytes: Uint8Array) => Promise<number>,
  { maxPendingChars = 1 << 20, onDropped, delayMs = 100, flushBytes = 1 << 18 }: LineWriterOptions,
): LineWriter {
  const encoder = new TextEncoder();
  /** The waiting lines' bytes: filled buffers, then `buffer`, of which `used` bytes are filled. */
  let filled: Uint8Array[] = [];
  let filledBytes = 0;
  let buffer: Uint8Array | undefined;
  let used = 0;
  const spare: Uint8Array[] = [];
  let pendingLines = 0;
  let pendingChars = 0;
  let dropped = 0;
  let writing: Promise<void> | undefined;
  let scheduled: ReturnType<typeof setTimeout> | undefined;

  async function writeAll(batch: Uint8Array[]): Promise<void> {
    for (const bytes of batch) {
      for (let at = 0; at < bytes.length;) at += await write(bytes.subarray(at));
    }
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
    const batch = buffer ? [...filled, buffer.subarray(0, used)] : filled;
    const lines = pendingLines;
    filled = [];
    filledBytes = 0;
    buffer = undefined;
    used = pendingLines = pendingChars = 0;
    writing = writeAll(batch)
      // A closed stdout: these lines are lost, as later ones will be; nothing else fails.
      .catch(() => void (dropped += lines))
      .finally(() => {
        for (const written of batch) {
          if (written.buffer.byteLength === BUFFER_BYTES && spare.length < SPARE_BUFFERS) {
            spare.push(new Uint8Array(written.buffer));
          }
        }
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
      if (pendingChars + line.length + 1 > maxPendingChars) {
        dropped++;
        return;
      }
      // The most bytes the line and its newline can take: three per UTF-16 code unit.
      const room = line.length * 3 + 1;
      if (!buffer || buffer.length - used < room) {
        if (buffer) {
          filled.push(buffer.subarray(0, used));
          filledBytes += used;
        }
        buffer = room > BUFFER_BYTES
          ? new Uint8Array(room)
          : spare.pop() ?? new Uint8Array(BUFFER_BYTES);
        used = 0;
      }
      used += encoder.encodeInto(line, buffer.subarray(used)).written;
      buffer[used++] = NEWLINE;
      pendingLines++;
      pendingChars += line.length + 1;
      if (filledBytes + used >= flushBytes) pump();
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
