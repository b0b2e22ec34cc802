/**
 * A `guardedServe` server answering "ok" on 127.0.0.1, for tests that run it in a process of its
 * own (under a lower file-descriptor limit, say), with the idle timeout `IDLE_TIMEOUT_MS` if set.
 * Prints `listening <port>`; SIGTERM stops it.
 *
 * @module
 */
import { guardedServe } from "../../edge/deno/app/connection_guard.ts";

const server = guardedServe({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeoutMs: Number(Deno.env.get("IDLE_TIMEOUT_MS") ?? 30_000),
  onListen: ({ port }) => console.log(`listening ${port}`),
}, () => new Response("ok"));
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  Deno.exit(0);
});
