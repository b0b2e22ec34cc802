import { SetupError } from "../../mod.ts";
import { BrowserReader, type PageReader } from "../../src/fetch/mod.ts";
import { ConnectProxy, type ConnectProxyOptions } from "./connect_proxy.ts";

/**
 * Options of {@linkcode launchChromium}.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a Chromium installed.
 * import type { ChromiumOptions } from "@outpost/agent-tools/deno";
 * const options: ChromiumOptions = { path: "/usr/bin/chromium", startTimeoutMs: 20_000 };
 * ```
 */
export interface ChromiumOptions {
  /** The browser's executable (default Debian's `/usr/bin/chromium`). */
  path?: string;
  /**
   * The checking proxy every request of the browser goes through: its options (default: the
   * address guard's, with names looked up by `Deno.resolveDns`), or `false` for none, which
   * lets pages reach any address the machine can (an intranet, say).
   */
  proxy?: ConnectProxyOptions | false;
  /** More command-line switches for the browser. */
  args?: readonly string[];
  /** How long the browser may take to start (default 30 000 ms). */
  startTimeoutMs?: number;
}

/**
 * A headless Chromium on this machine, for `BrowserReader`; close it when done.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a Chromium installed.
 * import type { LocalChromium } from "@outpost/agent-tools/deno";
 * import { BrowserReader } from "@outpost/agent-tools/fetch";
 * const readerOn = (chromium: LocalChromium) =>
 *   new BrowserReader({ browser: chromium.endpoint, proxyCredentials: chromium.proxyCredentials });
 * ```
 */
export interface LocalChromium extends AsyncDisposable {
  /** Its DevTools WebSocket URL: `BrowserReader`'s `browser`. */
  readonly endpoint: string;
  /** What its proxy asks for: `BrowserReader`'s `proxyCredentials` (absent without a proxy). */
  readonly proxyCredentials?: { username: string; password: string };
  /** Stops the browser and its proxy, and removes its profile. */
  close(): Promise<void>;
}

/** "DevTools listening on ws://127.0.0.1:41235/devtools/browser/…" on the browser's stderr. */
const DEVTOOLS_LINE = /DevTools listening on (ws:\/\/\S+)/;
/** How long the browser gets to stop when asked, before it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** The most of the browser's stderr read while waiting for that line. */
const MAX_START_OUTPUT = 1_000_000;

/**
 * Starts a headless Chromium whose every request — pages, redirects, subresources, WebSockets,
 * service workers — goes through a {@linkcode ConnectProxy} that refuses private and local
 * addresses (loopback included: `--proxy-bypass-list=<-loopback>`), resolving names itself so
 * they cannot rebind. The browser resolves no name itself, sends WebRTC only through the proxy
 * (which carries no UDP), and keeps its profile in a temporary directory removed on close. Needs
 * `--allow-run`, `--allow-net`, `--allow-env` (for the proxy), `--allow-read` and `--allow-write`
 * (the profile).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Tool, webFetch } from "@outpost/agent-tools";
 * import { BrowserReader } from "@outpost/agent-tools/fetch";
 * import { launchChromium, resolveHost } from "@outpost/agent-tools/deno";
 *
 * // web_fetch that renders pages built by scripts, for as long as `use` runs.
 * async function withBrowser(use: (tool: Tool) => Promise<void>): Promise<void> {
 *   await using chromium = await launchChromium();
 *   const reader = new BrowserReader({
 *     browser: chromium.endpoint,
 *     proxyCredentials: chromium.proxyCredentials,
 *     resolveHost,
 *   });
 *   await use(webFetch(reader));
 * }
 * assert.equal(typeof withBrowser, "function");
 * ```
 */
export async function launchChromium(options: ChromiumOptions = {}): Promise<LocalChromium> {
  const { path = "/usr/bin/chromium", proxy = {}, args = [], startTimeoutMs = 30_000 } = options;
  if (typeof path !== "string" || path === "") throw new SetupError("path must name a program.");
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    throw new SetupError("args must be an array of strings.");
  }
  const credentials = proxy === false ? undefined : {
    username: "outpost",
    password: Array.from(
      crypto.getRandomValues(new Uint8Array(24)),
      (byte) => byte.toString(16).padStart(2, "0"),
    ).join(""),
  };
  const checking = proxy === false ? undefined : new ConnectProxy({ ...proxy, credentials });
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const switches = [
    "--headless",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
    `--user-data-dir=${profile}`,
    "--no-first-run",
    "--no-default-browser-check",
    // No traffic of the browser's own: updates, reports, lookups, pings.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--no-pings",
    "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication",
    "--disable-gpu",
    "--mute-audio",
    // Root (containers) cannot use the sandbox; elsewhere it stays on.
    ...(Deno.uid?.() === 0 ? ["--no-sandbox"] : []),
    ...(checking
      ? [
        `--proxy-server=${checking.url}`,
        // Chromium sends loopback straight out unless told otherwise.
        "--proxy-bypass-list=<-loopback>",
        // Names are the proxy's to resolve; nothing may go around it.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
      ]
      : []),
    ...args,
    "about:blank",
  ];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(path, {
      args: switches,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    })
      .spawn();
  } catch (error) {
    await checking?.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw new SetupError(`Could not start ${path}: ${(error as Error).message}.`, {
      hint: error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
        ? "Run Deno with --allow-run (the browser is a program of its own)."
        : "Install Chromium (apt-get install chromium) or give its path.",
    });
  }
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      const kill = (signal: Deno.Signal) => {
        try {
          child.kill(signal);
        } catch {
          // Already gone.
        }
      };
      kill("SIGTERM");
      // A browser that does not stop when asked is stopped.
      const stubborn = setTimeout(() => kill("SIGKILL"), STOP_TIMEOUT_MS);
      await child.status;
      clearTimeout(stubborn);
      await checking?.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    })();
  try {
    const endpoint = await devtoolsUrl(child.stderr, startTimeoutMs);
    return {
      endpoint,
      ...(credentials ? { proxyCredentials: credentials } : {}),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Reads the browser's stderr up to its DevTools line, then drains the rest in the background. */
async function devtoolsUrl(stderr: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SetupError(`Chromium did not start within ${timeoutMs} ms.`)),
      timeoutMs,
    );
  });
  let output = "";
  try {
    while (output.length < MAX_START_OUTPUT) {
      const { done, value } = await Promise.race([reader.read(), timeout]);
      if (done) break;
      output += value;
      const match = DEVTOOLS_LINE.exec(output);
      if (match) {
        // The browser blocks once its stderr fills: keep reading it, dropping what it says.
        (async () => {
          while (!(await reader.read()).done);
        })().catch(() => {});
        return match[1];
      }
    }
  } finally {
    clearTimeout(timer);
  }
  reader.cancel().catch(() => {});
  throw new SetupError(`Chromium exited or said nothing usable on start: ${output.slice(-500)}`);
}

/**
 * The browser that `OUTPOST_BROWSER` names for the Deno entries: a DevTools URL (`ws://`,
 * `wss://`) of a browser elsewhere, or the path of a Chromium to launch here — behind the checking
 * proxy unless private addresses are allowed. Unset or empty, none.
 */
export async function browserFromSetting(
  value: string | undefined,
  { allowPrivateNetwork, resolveHost }: {
    allowPrivateNetwork: boolean;
    resolveHost: ConnectProxyOptions["resolveHost"];
  },
): Promise<{ reader?: (plain: PageReader) => PageReader; close(): Promise<void> }> {
  const setting = value?.trim();
  if (!setting) return { close: () => Promise.resolve() };
  const remote = /^wss?:\/\//i.test(setting);
  const chromium = remote ? undefined : await launchChromium({
    path: setting,
    proxy: allowPrivateNetwork ? false : { resolveHost },
  });
  return {
    reader: (http) =>
      new BrowserReader({
        browser: chromium?.endpoint ?? setting,
        ...(chromium?.proxyCredentials ? { proxyCredentials: chromium.proxyCredentials } : {}),
        http,
        allowPrivateNetwork,
        resolveHost,
      }),
    close: () => chromium?.close() ?? Promise.resolve(),
  };
}
