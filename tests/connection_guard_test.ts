import assert from "node:assert/strict";
import {
  guardedServe,
  type GuardedServeOptions,
  type GuardedServer,
} from "../edge/deno/app/connection_guard.ts";
import { peerOfAddress } from "../edge/deno/app/peer_of_address.ts";
import { connectFrom, holdSilent, type PeerConn } from "./support/peers.ts";
import { waitFor } from "./support/wait.ts";

const encoder = new TextEncoder();

/**
 * Timers that fire only when the test moves the time on, so a bound is decided by the test and
 * not by the machine's load (the shape of `Clock.setTimer`).
 */
class ManualTimers {
  #now = 0;
  #timers = new Set<{ at: number; callback: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.#now + ms, callback };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** How long each pending timer has left, soonest first. */
  get pending(): number[] {
    return [...this.#timers].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /** Moves the time on by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    this.#now += ms;
    const due = [...this.#timers].filter((t) => t.at <= this.#now).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      this.#timers.delete(timer);
      timer.callback();
    }
  }
}

function serve(
  limits: Omit<GuardedServeOptions, "hostname" | "port">,
  handler: (request: Request) => Response | Promise<Response> = () => new Response("ok"),
): GuardedServer {
  return guardedServe({ hostname: "127.0.0.1", port: 0, ...limits }, handler);
}

function connect(server: GuardedServer): Promise<Deno.Conn> {
  return Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
}

/** Reads until the server closes the connection; what it sent, as text. */
async function readToEnd(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
  } catch {
    // A reset is a close too.
  }
  try {
    conn.close();
  } catch {
    // Closed by the test already.
  }
  return text;
}

/** What the server sends next on `conn`, or "" once it closes it. */
async function readChunk(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  const n = await conn.read(buffer).catch(() => null);
  return n === null ? "" : new TextDecoder().decode(buffer.subarray(0, n));
}

/** Reads one whole response with a Content-Length body off a kept-alive connection. */
async function readResponse(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length - end - 4 >= length) return text;
    }
    const n = await conn.read(buffer);
    if (n === null) throw new Error(`closed after ${JSON.stringify(text)}`);
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
}

const GET = "GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
const GET_AND_CLOSE = "GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n";

/** One fresh request on a new connection: whether it was answered. */
async function answered(server: GuardedServer): Promise<boolean> {
  const conn = await connect(server);
  await conn.write(encoder.encode(GET_AND_CLOSE)).catch(() => {});
  return /^HTTP\/1\.1 200/.test(await readToEnd(conn));
}

/** Sends a request that closes `conn` after its answer; the answer. */
async function request(conn: PeerConn, rest = GET_AND_CLOSE): Promise<string> {
  conn.socket.write(rest);
  await conn.closed;
  return conn.received;
}

Deno.test(
  "a connection that has not delivered a request's headers headerTimeoutMs after opening is closed",
  { timeout: 10_000 },
  async () => {
    const clock = new ManualTimers();
    const server = serve({ headerTimeoutMs: 10_000, clock });
    try {
      const silent = await connect(server);
      const slow = await connect(server);
      await slow.write(encoder.encode("GET / HTTP/1.1\r\n"));
      const dribbling = await connect(server);
      await dribbling.write(encoder.encode("GET / HTTP/1.1\r\n"));
      await waitFor(() => clock.pending.join() === "10000,10000,10000", "the three timers");
      // Bytes that trickle in do not restart the clock: 9.999 s on, the slow client still gets
      // its answer, and at 10 s the dribbling one and the silent one are cut.
      await dribbling.write(encoder.encode("x-a: b\r\n"));
      clock.advance(9_999);
      await slow.write(encoder.encode("host: 127.0.0.1\r\nconnection: close\r\n\r\n"));
      assert.match(await readToEnd(slow), /^HTTP\/1\.1 200/);
      await dribbling.write(encoder.encode("x-a: b\r\n"));
      clock.advance(1);
      assert.equal(await readToEnd(dribbling), "");
      assert.equal(await readToEnd(silent), "");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "a parked connection still closes at its header timeout",
  { timeout: 10_000 },
  async () => {
    const clock = new ManualTimers();
    const server = serve({ maxHalfOpen: 1, headerTimeoutMs: 1_000, clock });
    try {
      const parked = await connect(server);
      await waitFor(() => clock.pending.join() === "1000", "the first connection");
      clock.advance(500);
      // The newcomer parks the first, whose clock runs on.
      const newcomer = await connect(server);
      await waitFor(() => clock.pending.join() === "500,1000", "the second connection");
      clock.advance(500);
      assert.equal(await readToEnd(parked), "");
      await newcomer.write(encoder.encode(GET_AND_CLOSE));
      assert.match(await readToEnd(newcomer), /^HTTP\/1\.1 200/);
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "a kept-alive connection is closed once idle, and works until then",
  { timeout: 10_000 },
  async () => {
    const clock = new ManualTimers();
    const server = serve({ idleTimeoutMs: 30_000, headerTimeoutMs: 5_000, clock });
    try {
      const conn = await connect(server);
      for (let i = 0; i < 3; i++) {
        await conn.write(encoder.encode(GET));
        assert.match(await readResponse(conn), /^HTTP\/1\.1 200/);
        await waitFor(() => clock.pending.join() === "30000", "the idle timer");
        clock.advance(29_999);
      }
      clock.advance(1);
      assert.equal(await readToEnd(conn), "");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "idle connections are closed each at its own idle timeout, on one timer for them all",
  { timeout: 10_000 },
  async () => {
    const clock = new ManualTimers();
    const server = serve({ idleTimeoutMs: 30_000, headerTimeoutMs: 5_000, clock });
    const ask = async (conn: Deno.Conn) => {
      await conn.write(encoder.encode(GET));
      assert.match(await readResponse(conn), /^HTTP\/1\.1 200/);
    };
    try {
      const [a, b, c, probe] = await Promise.all([1, 2, 3, 4].map(() => connect(server)));
      await waitFor(() => clock.pending.join() === "5000,5000,5000,5000", "four header timers");
      await ask(a);
      await waitFor(() => clock.pending.join() === "5000,5000,5000,30000", "a idle");
      clock.advance(4_000);
      await ask(b);
      await ask(c);
      // Answered after b's and c's responses went out: they are idle since now.
      await probe.write(encoder.encode(GET_AND_CLOSE));
      assert.match(await readToEnd(probe), /^HTTP\/1\.1 200/);
      // One timer, for the longest idle; none per request.
      await waitFor(() => clock.pending.join() === "26000", "one idle timer", { timeoutMs: 5_000 });
      clock.advance(25_999);
      assert.deepEqual(clock.pending, [1]);
      clock.advance(1);
      assert.equal(await readToEnd(a), "");
      // Set again for the next one, to the millisecond.
      assert.deepEqual(clock.pending, [4_000]);
      clock.advance(4_000);
      assert.equal(await readToEnd(b), "");
      assert.equal(await readToEnd(c), "");
      assert.deepEqual(clock.pending, []);
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "a long call and a quiet event stream outlive every timeout",
  { timeout: 10_000 },
  async () => {
    const clock = new ManualTimers();
    const called = Promise.withResolvers<void>();
    const slow = Promise.withResolvers<void>();
    const second = Promise.withResolvers<void>();
    const server = serve({ idleTimeoutMs: 100, headerTimeoutMs: 100, clock }, async (request) => {
      if (new URL(request.url).pathname === "/slow") {
        called.resolve();
        await slow.promise;
        return new Response("finally");
      }
      return new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(encoder.encode("data: first\n\n"));
            await second.promise;
            controller.enqueue(encoder.encode("data: second\n\n"));
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    });
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const call = fetch(`${base}/slow`);
      await called.promise;
      // A request in flight is on no clock.
      assert.deepEqual(clock.pending, []);
      clock.advance(3_600_000);
      slow.resolve();
      assert.equal(await (await call).text(), "finally");
      const events = await fetch(`${base}/events`);
      const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
      assert.equal((await reader.read()).value, "data: first\n\n");
      assert.deepEqual(clock.pending, []);
      clock.advance(3_600_000);
      second.resolve();
      let rest = "";
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        rest += read.value;
      }
      assert.equal(rest, "data: second\n\n");
    } finally {
      slow.resolve();
      second.resolve();
      await server.shutdown();
    }
  },
);

Deno.test(
  "a client holding every half-open slot and reopening what is closed locks nobody out",
  { timeout: 30_000 },
  async () => {
    // No timer fires: the bounds on half-open connections alone must let the real requests in.
    const server = serve({ maxHalfOpen: 64, clock: new ManualTimers() });
    // A kept-alive connection served before the attack is not half-open: it is never evicted.
    const served = await connect(server);
    await served.write(encoder.encode(GET));
    assert.match(await readResponse(served), /^HTTP\/1\.1 200/);
    // From the very address the real requests come from, as in the attack on the service.
    const attack = holdSilent(server.addr.port, 64, "127.0.0.1");
    try {
      await waitFor(() => attack.opened >= 64, "the attacker's 64 connections");
      const fresh = 20;
      let ok = 0;
      for (let i = 0; i < fresh; i++) if (await answered(server)) ok++;
      console.log(
        `answered ${ok} of ${fresh} fresh requests; the attacker reopened ${attack.reopened}`,
      );
      assert.equal(ok, fresh);
      // What made room was parked, not closed: the attacker had nothing to reopen.
      assert.equal(attack.reopened, 0);
      await served.write(encoder.encode(GET));
      assert.match(await readResponse(served), /^HTTP\/1\.1 200/);
    } finally {
      await attack.stop();
      served.close();
      await server.shutdown();
    }
  },
);

Deno.test(
  "a full table parks its oldest connection, which is served if it speaks, until more are parked",
  { timeout: 20_000 },
  async () => {
    const clock = new ManualTimers();
    const server = serve({ maxHalfOpen: 16, maxHalfOpenPerPeer: 4, maxParked: 1, clock });
    const silent: PeerConn[] = [];
    try {
      // A slow client, oldest of all, has sent part of its headers.
      const slow = await connectFrom(server.addr.port, "127.0.0.3");
      slow.socket.write("GET / HTTP/1.1\r\n");
      // Then four peers fill the table with silent connections, within their own caps.
      for (const [last, count] of [[4, 4], [5, 4], [6, 4], [7, 3]]) {
        for (let i = 0; i < count; i++) {
          silent.push(await connectFrom(server.addr.port, `127.0.0.${last}`));
        }
      }
      await waitFor(() => clock.pending.length === 16, "sixteen half-open connections");
      // A newcomer from a fifth peer parks the oldest, which is still answered when it finishes
      // its request.
      const newcomers = [await connect(server)];
      await waitFor(() => clock.pending.length === 17, "the first newcomer");
      const rest = "host: 127.0.0.1\r\nconnection: close\r\n\r\n";
      assert.match(await request(slow, rest), /^HTTP\/1\.1 200/);
      // Two more park the two oldest silent ones: only one may wait parked, and the second
      // closes the first.
      newcomers.push(await connect(server), await connect(server));
      await silent[0].closed;
      for (const conn of newcomers) {
        await conn.write(encoder.encode(GET_AND_CLOSE));
        assert.match(await readToEnd(conn), /^HTTP\/1\.1 200/);
      }
      // The parked one and all the others are answered when they speak.
      for (const conn of silent.slice(1)) assert.match(await request(conn), /^HTTP\/1\.1 200/);
    } finally {
      for (const { socket } of silent) socket.destroy();
      await server.shutdown();
    }
  },
);

Deno.test(
  "one peer cannot take other peers' half-open slots",
  { timeout: 20_000 },
  async () => {
    const server = serve({
      maxHalfOpen: 16,
      maxHalfOpenPerPeer: 4,
      maxParked: 8,
      clock: new ManualTimers(),
    });
    const attacker: PeerConn[] = [];
    try {
      // Two clients of one peer, one slow to send its headers, one silent so far.
      const slow = await connect(server);
      await slow.write(encoder.encode("GET / HTTP/1.1\r\n"));
      const quiet = await connect(server);
      // Another peer opens 20 silent connections: it keeps its 4 newest in the table, 8 more
      // parked, and the oldest 8 are closed; the first peer's connections are not touched.
      for (let i = 0; i < 20; i++) attacker.push(await connectFrom(server.addr.port, "127.0.0.2"));
      await Promise.all(attacker.slice(0, 8).map(({ closed }) => closed));
      await slow.write(encoder.encode("host: 127.0.0.1\r\nconnection: close\r\n\r\n"));
      assert.match(await readToEnd(slow), /^HTTP\/1\.1 200/);
      await quiet.write(encoder.encode(GET_AND_CLOSE));
      assert.match(await readToEnd(quiet), /^HTTP\/1\.1 200/);
      for (const conn of attacker.slice(8)) assert.match(await request(conn), /^HTTP\/1\.1 200/);
    } finally {
      for (const { socket } of attacker) socket.destroy();
      await server.shutdown();
    }
  },
);

Deno.test(
  "shutdown answers the requests in flight before it closes; close cuts them unanswered",
  { timeout: 10_000 },
  async () => {
    for (const how of ["shutdown", "close"] as const) {
      const called = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      const server = serve({ clock: new ManualTimers() }, async (request) => {
        if (new URL(request.url).pathname !== "/busy") return new Response("ok");
        called.resolve();
        await release.promise;
        return new Response("late");
      });
      const idle = await connect(server);
      await idle.write(encoder.encode(GET));
      assert.match(await readResponse(idle), /^HTTP\/1\.1 200/);
      const busy = await connect(server);
      await busy.write(encoder.encode("GET /busy HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"));
      await called.promise;
      const stopped = how === "shutdown" ? server.shutdown() : (server.close(), undefined);
      // Either way an idle connection goes at once.
      assert.equal(await readToEnd(idle), "");
      release.resolve();
      const answer = await readToEnd(busy);
      if (how === "shutdown") assert.match(answer, /^HTTP\/1\.1 200[^]*late$/);
      else assert.equal(answer, "");
      await (stopped ?? server.shutdown());
    }
  },
);

/**
 * Runs `attack` and then three requests against a front in a process of its own, allowed 64 file
 * descriptors and a 10-minute idle timeout; each request must be answered.
 */
async function withScarceDescriptors(attack: (port: number) => Promise<Deno.Conn[]>) {
  const script = new URL("./support/guarded_server.ts", import.meta.url).pathname;
  const child = new Deno.Command("sh", {
    args: ["-c", 'ulimit -n 64 && exec "$0" run -A "$1"', Deno.execPath(), script],
    env: { IDLE_TIMEOUT_MS: "600000" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let held: Deno.Conn[] = [];
  try {
    let output = "";
    while (!/listening \d+/.test(output)) output += (await lines.read()).value ?? "";
    const port = Number(/listening (\d+)/.exec(output)![1]);
    held = await attack(port);
    for (let i = 0; i < 3; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(encoder.encode(GET_AND_CLOSE));
      assert.match(await readToEnd(conn), /^HTTP\/1\.1 200/);
    }
  } finally {
    for (const conn of held) conn.close();
    child.kill("SIGTERM");
    await child.status;
    await lines.cancel();
  }
}

Deno.test({
  name: "silent connections that use up the file descriptors do not stop the front accepting",
  ignore: Deno.build.os === "windows",
  timeout: 60_000,
  async fn() {
    // More silent connections than it has descriptors for: each is accepted, or waits in the
    // listen queue.
    await withScarceDescriptors(async (port) => {
      const silent: Deno.Conn[] = [];
      for (let i = 0; i < 100; i++) {
        silent.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      }
      return silent;
    });
  },
});

Deno.test({
  name: "kept-alive connections that use up the file descriptors neither crash nor block the front",
  ignore: Deno.build.os === "windows",
  timeout: 60_000,
  async fn() {
    // Each served and then idle, until the descriptors run out.
    await withScarceDescriptors(async (port) => {
      const idle: Deno.Conn[] = [];
      for (let i = 0; i < 100; i++) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        idle.push(conn);
        await conn.write(encoder.encode(GET));
        if (!/^HTTP\/1\.1 200/.test(await readChunk(conn))) break;
      }
      return idle;
    });
  },
});

/** The listening sockets this process holds: TCP ports and Unix socket paths (Linux). */
async function listeningSockets(): Promise<{ ports: number[]; paths: string[] }> {
  const inodes = new Set<string>();
  for await (const entry of Deno.readDir("/proc/self/fd")) {
    const target = await Deno.readLink(`/proc/self/fd/${entry.name}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of (await Deno.readTextFile(file)).split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // `st` 0A is LISTEN.
      if (fields[3] === "0A" && inodes.has(fields[9])) {
        ports.push(parseInt(fields[1].split(":")[1], 16));
      }
    }
  }
  const paths: string[] = [];
  for (const line of (await Deno.readTextFile("/proc/net/unix")).split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // Flags 00010000 mark a listening socket.
    if (fields[3] === "00010000" && inodes.has(fields[6]) && fields[7]) paths.push(fields[7]);
  }
  return { ports, paths };
}

Deno.test({
  name: "nothing but the front listens: no server behind it can be reached",
  ignore: Deno.build.os !== "linux",
  timeout: 10_000,
  async fn() {
    const release = Promise.withResolvers<void>();
    const server = serve({}, async () => {
      await release.promise;
      return new Response("ok");
    });
    try {
      // One request in flight and one kept-alive connection: every kind of connection is open.
      const served = await connect(server);
      await served.write(encoder.encode("GET /first HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"));
      const waiting = await connect(server);
      await waiting.write(encoder.encode(GET));
      release.resolve();
      assert.match(await readResponse(served), /^HTTP\/1\.1 200/);
      const { ports, paths } = await listeningSockets();
      assert.deepEqual(ports, [server.addr.port]);
      assert.deepEqual(paths, []);
      served.close();
      waiting.close();
    } finally {
      release.resolve();
      await server.shutdown();
    }
  },
});

Deno.test("a peer is an IPv4 address, or the /64 of an IPv6 one", () => {
  const peer = (hostname: string) => peerOfAddress({ transport: "tcp", hostname, port: 1 });
  assert.equal(peer("203.0.113.9"), "203.0.113.9");
  assert.equal(peer("::ffff:203.0.113.9"), "203.0.113.9");
  assert.equal(peer("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(peer("2001:DB8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
  assert.equal(peer("2001:db8::7"), "2001:db8:0:0::/64");
  assert.equal(peer("::1"), "0:0:0:0::/64");
  assert.equal(peer("fe80::1%eth0"), "fe80:0:0:0::/64");
});
