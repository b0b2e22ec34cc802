import { SetupError, ToolError } from "../../mod.ts";
import { isPrivateHost, type ResolveHost } from "../../src/fetch/mod.ts";
import { systemClock } from "../../src/clock.ts";
import { aFunction, checkOption } from "../../src/option_checks.ts";
import { checkedAddresses } from "../../src/fetch/address_guard.ts";
import { resolveHost as resolveWithDeno } from "./resolve_host.ts";

/**
 * Options of {@linkcode ConnectProxy}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectProxy, type ConnectProxyOptions } from "@outpost/agent-tools/deno";
 * // Lets a test reach its own server on this machine, which the default refuses.
 * const options: ConnectProxyOptions = { allowAddress: (host) => host === "127.0.0.1" };
 * await using site = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response("hi"));
 * await using proxy = new ConnectProxy(options);
 * const response = await proxy.fetch(`http://127.0.0.1:${site.addr.port}/`);
 * assert.equal(await response.text(), "hi");
 * ```
 */
export interface ConnectProxyOptions {
  /** Looks names up for the proxy (default: the Deno subpath's `resolveHost`, on `Deno.resolveDns`). */
  resolveHost?: ResolveHost;
  /**
   * Whether the proxy may connect to `host`: called with the host as the URL names it and with
   * every address it resolves to; one refusal refuses the request (default: what the address
   * guard allows, so never a private or local address).
   */
  allowAddress?: (host: string) => boolean;
  /** Root certificates (PEM) trusted besides the system's, as for `Deno.createHttpClient`. */
  caCerts?: string[];
  /**
   * The credentials the proxy asks for (default: generated, known only to this object's
   * `fetch`); given, another client can use the proxy too, such as a browser that answers the
   * proxy's `Basic` challenge with them.
   */
  credentials?: { username: string; password: string };
}

/** The longest request head the proxy reads, in bytes, and how long it waits for it. */
const MAX_HEAD_BYTES = 16_384;
const HEAD_TIMEOUT_MS = 10_000;
/** How long resolving and connecting to the destination may take. */
const DIAL_TIMEOUT_MS = 15_000;
/** Refusals remembered for `fetch` to report, by destination. */
const MAX_REFUSALS = 256;
/** Request headers meant for the proxy, or for one hop only, which are not passed on. */
const HOP_HEADERS = new Set([
  "proxy-authorization",
  "proxy-connection",
  "connection",
  "keep-alive",
  "te",
  "upgrade",
]);
const encoder = new TextEncoder();

/**
 * A `fetch` that connects only to the address it checked, closing the gap between the address
 * guard's DNS lookup and the connection (DNS rebinding). Requests go through a forward proxy
 * that this object runs in-process on loopback, reached with `Deno.createHttpClient({ proxy })`:
 * for each connection the proxy resolves the name itself, refuses it when the name or any
 * address it resolves to is private (the same check as `HttpReader`'s guard), and dials one of
 * the checked addresses. HTTPS stays end to end — the proxy only relays the `CONNECT` tunnel, so
 * the TLS name check, SNI and `Host` are the URL's — and plain HTTP is forwarded with its `Host`
 * header intact. A refusal rejects with the guard's {@linkcode ToolError}. Only this object's
 * `fetch` can use the proxy: it requires a credential generated per instance. `NO_PROXY` and
 * `no_proxy`, which Deno would apply even to this proxy, are kept away from its client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { ConnectProxy, resolveHost } from "@outpost/agent-tools/deno";
 *
 * await using proxy = new ConnectProxy({ resolveHost });
 * const tool = webFetch(new HttpReader({ resolveHost, fetch: proxy.fetch }));
 *
 * // The proxy checks every address it dials itself, so a name re-pointed at a private address
 * // after the reader's check (DNS rebinding) is refused as well as a plain local one:
 * await assert.rejects(proxy.fetch("http://127.0.0.1:8089/"), /private or local network address/);
 * ```
 */
export class ConnectProxy implements AsyncDisposable {
  /** The proxy's own address, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `fetch` through the proxy: the same signature as the global one. */
  readonly fetch: typeof fetch;
  readonly #listener: Deno.TcpListener;
  readonly #client: Deno.HttpClient;
  readonly #credential: string;
  readonly #resolveHost: ResolveHost;
  readonly #allow: (host: string) => boolean;
  readonly #open = new Set<Deno.Conn>();
  readonly #refusals = new Map<string, ToolError>();
  readonly #accepting: Promise<void>;
  #closed = false;

  /**
   * Starts listening on a free loopback port. Throws `SetupError` for a bad option, or when the
   * process may not read and clear `NO_PROXY`/`no_proxy` (`--allow-env=NO_PROXY,no_proxy`).
   */
  constructor(options: ConnectProxyOptions = {}) {
    const { resolveHost = resolveWithDeno, allowAddress, caCerts, credentials } = options;
    checkOption("resolveHost", resolveHost, aFunction("from a host name to its addresses"));
    if (allowAddress !== undefined) {
      checkOption("allowAddress", allowAddress, aFunction("from a host or address to a boolean"));
    }
    this.#resolveHost = resolveHost;
    this.#allow = allowAddress ?? ((host) => !isPrivateHost(host));
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.url = `http://127.0.0.1:${this.#listener.addr.port}`;
    if (
      credentials !== undefined &&
      (typeof credentials?.username !== "string" || typeof credentials.password !== "string" ||
        credentials.username.includes(":") || credentials.password === "")
    ) {
      this.#listener.close();
      throw new SetupError("credentials must hold a username without `:` and a password.");
    }
    const username = credentials?.username ?? "outpost";
    const password = credentials?.password ?? Array.from(
      crypto.getRandomValues(new Uint8Array(24)),
      (byte) => byte.toString(16).padStart(2, "0"),
    ).join("");
    this.#credential = `Basic ${btoa(`${username}:${password}`)}`;
    try {
      this.#client = ignoringProxyExceptions(() =>
        Deno.createHttpClient({
          caCerts,
          proxy: { url: this.url, basicAuth: { username, password } },
        })
      );
    } catch (error) {
      this.#listener.close();
      throw error;
    }
    this.fetch = (input, init) => this.#fetch(input, init);
    this.#accepting = this.#accept();
  }

  /** Stops the proxy: the listener, open tunnels and the client's pooled connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener.close();
    for (const conn of this.#open) closeQuietly(conn);
    this.#client.close();
    await this.#accepting;
  }

  /** Same as {@linkcode ConnectProxy.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    try {
      return await fetch(input, { ...init, client: this.#client });
    } catch (error) {
      if (init?.signal?.aborted || (input instanceof Request && input.signal.aborted)) throw error;
      // The proxy refused the destination and hung up: say why, in the guard's words.
      throw this.#refusals.get(destination(url)) ?? error;
    }
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        this.#open.add(conn);
        this.#serve(conn).catch(() => {}).finally(() => {
          this.#open.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch {
      // The listener was closed.
    }
  }

  async #serve(conn: Deno.Conn): Promise<void> {
    const request = await readHead(conn, MAX_HEAD_BYTES, HEAD_TIMEOUT_MS);
    if (!request) return;
    const [method, target] = request.start.split(" ");
    const credential = request.headers.find(([name]) => name === "proxy-authorization")?.[1];
    if (credential !== this.#credential) {
      // The challenge lets a browser answer with its credentials.
      await writeAll(
        conn,
        'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="outpost"\r\ncontent-length: 0\r\n\r\n',
      );
      return;
    }
    const url = method === "CONNECT" ? parseUrl(`https://${target}/`) : parseUrl(target);
    const wellFormed = url && url.username === "" && url.password === "" &&
      (method === "CONNECT" ? url.href === `https://${url.host}/` : url.protocol === "http:");
    if (!url || !wellFormed) {
      await writeAll(conn, "HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const upstream = await this.#dial(url);
    if (!upstream) return; // refused: hanging up makes the fetch reject, with the reason kept
    this.#open.add(upstream);
    try {
      if (method === "CONNECT") {
        await writeAll(conn, "HTTP/1.1 200 Connection Established\r\n\r\n");
      } else {
        // Plain HTTP: the request in origin form, for this one exchange only.
        const head = [`${method} ${url.pathname}${url.search} HTTP/1.1`];
        for (const [name, value] of request.headers) {
          if (!HOP_HEADERS.has(name)) head.push(`${name}: ${value}`);
        }
        head.push("connection: close", "", "");
        await writeAll(upstream, head.join("\r\n"));
      }
      await writeAll(upstream, request.rest);
      await relay(conn, upstream);
    } finally {
      this.#open.delete(upstream);
      closeQuietly(upstream);
    }
  }

  /** Resolves and checks `url`'s host, then connects to a checked address; `undefined` if refused. */
  async #dial(url: URL): Promise<Deno.Conn | undefined> {
    const key = destination(url);
    this.#refusals.delete(key); // an older refusal must not explain a later failure
    const signal = AbortSignal.timeout(DIAL_TIMEOUT_MS);
    let addresses: string[];
    try {
      addresses = await checkedAddresses(url, this.#resolveHost, signal, (h) => !this.#allow(h));
    } catch (error) {
      if (error instanceof ToolError) this.#remember(key, error);
      return undefined;
    }
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    for (const hostname of addresses) {
      try {
        return await Deno.connect({ hostname, port, signal });
      } catch {
        // The next checked address, if any.
      }
    }
    return undefined;
  }

  #remember(key: string, refusal: ToolError): void {
    this.#refusals.delete(key);
    this.#refusals.set(key, refusal);
    if (this.#refusals.size > MAX_REFUSALS) {
      this.#refusals.delete(this.#refusals.keys().next().value!);
    }
  }
}

/** The environment variables that exempt hosts from a proxy, in both spellings Deno reads. */
const PROXY_EXCEPTIONS = ["NO_PROXY", "no_proxy"];

/**
 * Runs `create` with `NO_PROXY` and `no_proxy` out of the environment, then puts them back.
 * Deno applies them even to a client's explicit proxy, reading them when the client is created:
 * `NO_PROXY=*`, common in container images, would send every name past the proxy's check.
 */
function ignoringProxyExceptions<T>(create: () => T): T {
  const denied = PROXY_EXCEPTIONS.filter((variable) =>
    Deno.permissions.querySync({ name: "env", variable }).state !== "granted"
  );
  if (denied.length > 0) {
    // Unread, the variables would still reach Deno's client, and could turn the proxy off.
    throw new SetupError(
      `ConnectProxy must read and clear ${denied.join(" and ")}, which Deno would otherwise ` +
        "apply even to this proxy and so connect to hosts it never checked.",
      { hint: "Run with --allow-env (or --allow-env=NO_PROXY,no_proxy)." },
    );
  }
  const saved = PROXY_EXCEPTIONS.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value] as const];
  });
  for (const [name] of saved) Deno.env.delete(name);
  try {
    return create();
  } finally {
    for (const [name, value] of saved) Deno.env.set(name, value);
  }
}

/** `host:port` of a URL, the port spelled out: the key refusals are kept under. */
function destination(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
}

function parseUrl(text: string | undefined): URL | undefined {
  return text !== undefined && URL.canParse(text) ? new URL(text) : undefined;
}

/** A request head: its first line, its header fields (names in lower case), and what followed. */
interface Head {
  start: string;
  headers: [string, string][];
  rest: Uint8Array;
}

/** Reads a request head (up to the blank line) within a size and a time bound. */
async function readHead(
  conn: Deno.Conn,
  max: number,
  timeoutMs: number,
): Promise<Head | undefined> {
  const cancel = systemClock.setTimer(() => closeQuietly(conn), timeoutMs);
  const buffer = new Uint8Array(max);
  let length = 0;
  try {
    while (length < max) {
      const read = await conn.read(buffer.subarray(length));
      if (read === null) return undefined;
      const end = findBlankLine(buffer, Math.max(0, length - 3), length + read);
      length += read;
      if (end >= 0) {
        const lines = new TextDecoder().decode(buffer.subarray(0, end)).split("\r\n");
        const headers = lines.slice(1).flatMap((line): [string, string][] => {
          const colon = line.indexOf(":");
          return colon > 0
            ? [[line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]]
            : [];
        });
        return { start: lines[0], headers, rest: buffer.slice(end + 4, length) };
      }
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    cancel();
  }
}

function findBlankLine(bytes: Uint8Array, from: number, length: number): number {
  for (let i = from; i + 3 < length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, data: string | Uint8Array): Promise<void> {
  let bytes = typeof data === "string" ? encoder.encode(data) : data;
  while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
}

/** Copies bytes both ways until either side is done. */
async function relay(a: Deno.Conn, b: Deno.Conn): Promise<void> {
  const copy = (from: Deno.Conn, to: Deno.Conn) =>
    from.readable.pipeTo(to.writable, { preventClose: true }).catch(() => {});
  await Promise.race([copy(a, b), copy(b, a)]);
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
