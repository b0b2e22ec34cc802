import assert from "node:assert/strict";
import { lineWriter } from "../edge/deno/app/line_writer.ts";

/** A sink whose writes finish when the test says, taking at most `chunk` bytes each. */
function slowSink(chunk = Infinity) {
  const writes: string[] = [];
  const waiting: (() => void)[] = [];
  let failNext = false;
  return {
    writes,
    /** Lets the oldest write waiting finish. */
    release() {
      waiting.shift()?.();
    },
    failNext() {
      failNext = true;
    },
    write(bytes: Uint8Array): Promise<number> {
      const taken = bytes.subarray(0, Math.min(chunk, bytes.length));
      return new Promise((resolve, reject) =>
        waiting.push(() => {
          if (failNext) {
            failNext = false;
            return reject(new Error("closed"));
          }
          writes.push(new TextDecoder().decode(taken));
          resolve(taken.length);
        })
      );
    },
    get pending() {
      return waiting.length;
    },
  };
}

/** Lets the writer's promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("lines that come close together go out in one write", { timeout: 10_000 }, async () => {
  const sink = slowSink();
  const log = lineWriter((bytes) => sink.write(bytes), { onDropped: () => assert.fail() });
  log.write("a");
  log.write("b");
  assert.equal(sink.pending, 0, "the lines wait for others");
  const flushed = log.flush();
  sink.release();
  await flushed;
  assert.deepEqual(sink.writes, ["a\nb\n"]);
});

Deno.test("lines that come while a write runs go out together in the next, in order", {
  timeout: 10_000,
}, async () => {
  const sink = slowSink();
  const log = lineWriter((bytes) => sink.write(bytes), { onDropped: () => assert.fail() });
  log.write("a");
  const flushed = log.flush();
  log.write("b");
  log.write("c");
  assert.equal(sink.pending, 1, "one write at a time");
  sink.release();
  await settle();
  sink.release();
  await flushed;
  assert.deepEqual(sink.writes, ["a\n", "b\nc\n"]);
});

Deno.test("a write that takes part of the bytes is carried on", { timeout: 10_000 }, async () => {
  const sink = slowSink(3);
  const log = lineWriter((bytes) => sink.write(bytes), { onDropped: () => assert.fail() });
  log.write("hello");
  const flushed = log.flush();
  while (sink.pending > 0) {
    sink.release();
    await settle();
  }
  await flushed;
  assert.equal(sink.writes.join(""), "hello\n");
});

Deno.test("past the bound, lines are dropped and counted, and later ones still go out", {
  timeout: 10_000,
}, async () => {
  const sink = slowSink();
  const dropped: number[] = [];
  const log = lineWriter((bytes) => sink.write(bytes), {
    maxPendingChars: 10,
    onDropped: (count) => dropped.push(count),
  });
  log.write("first");
  let flushed = log.flush();
  // The first is being written; 10 characters may wait: "1234\n" twice, then no more.
  for (const line of ["1234", "5678", "lost", "gone"]) log.write(line);
  sink.release();
  await settle();
  assert.deepEqual(dropped, [2]);
  // A failed write loses its lines, reported as dropped too; the writer goes on.
  sink.failNext();
  sink.release();
  await flushed;
  assert.deepEqual(dropped, [2, 2]);
  log.write("after");
  flushed = log.flush();
  sink.release();
  await flushed;
  assert.deepEqual(sink.writes, ["first\n", "after\n"]);
});

Deno.test("long lines, and lines of any script, go out whole and in order", {
  timeout: 10_000,
}, async () => {
  const sink = slowSink();
  const log = lineWriter((bytes) => sink.write(bytes), { onDropped: () => assert.fail() });
  // Longer than a buffer, in one and in several bytes a character, and many short ones between.
  const lines = [
    "x".repeat(100_000),
    "é".repeat(40_000),
    ...Array.from({ length: 2_000 }, (_, i) => `line ${i} 日本語 🙂`),
    "🙂".repeat(30_000),
  ];
  for (const line of lines) log.write(line);
  const flushed = log.flush();
  while (sink.pending > 0 || sink.writes.join("").length < lines.join("\n").length) {
    sink.release();
    await settle();
  }
  await flushed;
  assert.equal(sink.writes.join(""), lines.map((line) => `${line}\n`).join(""));
});

Deno.test("enough characters waiting go out without waiting for the delay", {
  timeout: 10_000,
}, async () => {
  const sink = slowSink();
  const log = lineWriter((bytes) => sink.write(bytes), {
    onDropped: () => assert.fail(),
    delayMs: 3_600_000,
    flushChars: 100,
  });
  log.write("a".repeat(60));
  assert.equal(sink.pending, 0, "under the bound, the line waits");
  log.write("b".repeat(60));
  assert.equal(sink.pending, 1, "past it, a write starts");
  sink.release();
  await settle();
  assert.deepEqual(sink.writes, [`${"a".repeat(60)}\n${"b".repeat(60)}\n`]);
  log.write("c");
  const flushed = log.flush();
  sink.release();
  await flushed;
  assert.equal(sink.writes.at(-1), "c\n");
});
