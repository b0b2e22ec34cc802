/**
 * Reads a body up to `maxBytes` and cancels the rest, so memory stays bounded whatever the
 * server sends. Aborting `signal` cancels the read too, even with a `fetch` that ignores it.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal: AbortSignal,
  onProgress?: (received: number, maxBytes: number) => void,
): Promise<{ bytes: Uint8Array; capped: boolean }> {
  if (!body) return { bytes: new Uint8Array(0), capped: false };
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let capped = false;
  try {
    // A fetch that ignores the signal can answer after the abort, which no listener will hear.
    signal.throwIfAborted();
    while (true) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      if (total + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        capped = true;
        break;
      }
      chunks.push(value);
      total += value.length;
      onProgress?.(total, maxBytes);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (capped || signal.aborted) await reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, capped };
}
