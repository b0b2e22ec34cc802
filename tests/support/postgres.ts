/**
 * A throwaway PostgreSQL server for the tests: its own cluster in a temporary directory, on
 * 127.0.0.1 at a free port, started on first use and stopped when the test process ends. Each
 * caller of `database()` gets a fresh, empty database on it.
 *
 * Postgres refuses to run as root: as root (as CI runs), the cluster belongs to the `postgres`
 * user and its programs run through `runuser`. Without the server's programs the tests skip,
 * saying why, except where `OUTPOST_REQUIRE_POSTGRES=1` (CI) makes that a failure.
 *
 * @module
 */
import assert from "node:assert/strict";

/** Where the server's programs are: `pg_config --bindir`, else the newest /usr/lib/postgresql/N/bin. */
function findBinDir(): string | undefined {
  const has = (dir: string) => {
    try {
      return Deno.statSync(`${dir}/postgres`).isFile && Deno.statSync(`${dir}/initdb`).isFile;
    } catch {
      return false;
    }
  };
  try {
    const { success, stdout } = new Deno.Command("pg_config", { args: ["--bindir"] }).outputSync();
    const dir = new TextDecoder().decode(stdout).trim();
    if (success && has(dir)) return dir;
  } catch {
    // No pg_config on PATH: look where Debian puts the server.
  }
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find(has);
  } catch {
    return undefined;
  }
}

const binDir = findBinDir();
const required = Deno.env.get("OUTPOST_REQUIRE_POSTGRES") === "1";

/**
 * Why the PostgreSQL tests skip here, or `undefined` when they run. Pass it as a test's
 * `ignore`; in CI (`OUTPOST_REQUIRE_POSTGRES=1`) it is always `undefined`, so that a missing
 * server fails the tests instead.
 */
export const postgresMissing: string | undefined = binDir || required ? undefined : (
  "PostgreSQL's server programs are not installed (apt-get install postgresql); " +
  "set OUTPOST_REQUIRE_POSTGRES=1 to make that a failure"
);

if (postgresMissing) console.warn(`Skipping the PostgreSQL tests: ${postgresMissing}.`);

interface Running {
  port: number;
  dir: string;
  stop(): void;
  /** Stops the server (ending every session), runs `whileDown`, and starts it again. */
  restart(whileDown: () => Promise<void>): Promise<void>;
}

let running: Promise<Running> | undefined;
let databases = 0;

/** The user that runs the server: `postgres` when we are root, else ourselves. */
function owner(): { uid: number; gid: number } | undefined {
  if (Deno.uid() !== 0) return undefined;
  const { success, stdout } = new Deno.Command("id", { args: ["-u", "postgres"] }).outputSync();
  const group = new Deno.Command("id", { args: ["-g", "postgres"] }).outputSync();
  if (!success || !group.success) {
    throw new Error("running as root, but there is no `postgres` user to run the server as");
  }
  const decode = (bytes: Uint8Array) => Number(new TextDecoder().decode(bytes).trim());
  return { uid: decode(stdout), gid: decode(group.stdout) };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function start(): Promise<Running> {
  if (!binDir) {
    throw new Error(
      "OUTPOST_REQUIRE_POSTGRES=1, but PostgreSQL's server programs are not installed " +
        "(apt-get install postgresql)",
    );
  }
  const user = owner();
  const dir = await Deno.makeTempDir({ prefix: "outpost_pg_" });
  if (user) await Deno.chown(dir, user.uid, user.gid);
  const command = (program: string, args: string[]) =>
    user
      ? new Deno.Command("runuser", {
        args: ["-u", "postgres", "--", `${binDir}/${program}`, ...args],
        stdin: "null",
      })
      : new Deno.Command(`${binDir}/${program}`, { args, stdin: "null" });
  const run = async (program: string, args: string[]) => {
    const { success, stdout, stderr } = await command(program, args).output();
    const text = new TextDecoder();
    return { ok: success, output: text.decode(stdout) + text.decode(stderr) };
  };
  const data = `${dir}/data`;
  const init = await run("initdb", [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "outpost",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]);
  if (!init.ok) throw new Error(`initdb failed:\n${init.output}`);
  // A port taken by someone else between our look and the server's bind: try another.
  for (let attempt = 1;; attempt++) {
    const port = freePort();
    const options = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${dir}`,
      "-c max_connections=300",
      // A throwaway cluster: durability buys nothing here.
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
    ].join(" ");
    const startArgs = ["start", "-w", "-t", "60", "-D", data, "-l", `${dir}/server.log`];
    const started = await run("pg_ctl", [...startArgs, "-o", options]);
    if (started.ok) {
      const restart = async (whileDown: () => Promise<void>) => {
        const down = await run("pg_ctl", ["stop", "-m", "fast", "-w", "-t", "60", "-D", data]);
        if (!down.ok) throw new Error(`pg_ctl stop failed:\n${down.output}`);
        // Started again even when `whileDown` fails, for the tests after this one.
        const outcome = await whileDown().then(() => undefined, (error) => ({ error }));
        const up = await run("pg_ctl", [...startArgs, "-o", options]);
        if (!up.ok) throw new Error(`PostgreSQL did not start again:\n${up.output}`);
        if (outcome) throw outcome.error;
      };
      const stop = () => {
        const args = ["stop", "-m", "immediate", "-D", data];
        (user
          ? new Deno.Command("runuser", {
            args: ["-u", "postgres", "--", `${binDir}/pg_ctl`, ...args],
          })
          : new Deno.Command(`${binDir}/pg_ctl`, { args })).outputSync();
        Deno.removeSync(dir, { recursive: true });
      };
      globalThis.addEventListener("unload", stop);
      return { port, dir, stop, restart };
    }
    let log = "";
    try {
      log = await Deno.readTextFile(`${dir}/server.log`);
    } catch {
      // No log written.
    }
    if (attempt >= 3 || !/address already in use|could not bind/i.test(log)) {
      throw new Error(`PostgreSQL did not start:\n${started.output}\n${log}`);
    }
  }
}

/**
 * A fresh, empty database on the test server (started on first use), as a connection URL:
 * `postgres://outpost@127.0.0.1:<port>/<name>`, no password (the cluster trusts local users).
 */
export async function freshDatabase(): Promise<string> {
  const { port } = await (running ??= start());
  const name = `t${Deno.pid}_${++databases}`;
  const args = ["-h", "127.0.0.1", "-p", String(port), "-U", "outpost", name];
  const { success, stderr } = await new Deno.Command(`${binDir}/createdb`, { args }).output();
  if (!success) throw new Error(`createdb failed: ${new TextDecoder().decode(stderr)}`);
  return `postgres://outpost@127.0.0.1:${port}/${name}`;
}

/**
 * Restarts the test server as an administrator or a failover does: every session ends, nothing
 * listens while `whileDown` runs, then it starts again on the same port with the same data.
 */
export async function restartServer(
  whileDown: () => Promise<void> = async () => {},
): Promise<void> {
  if (!running) throw new Error("restartServer before any freshDatabase: no server to restart");
  await (await running).restart(whileDown);
}

/**
 * `OUTPOST_DATABASE_URL`s that every Deno entry refuses at its start, with what it then says:
 * nothing listens on port 1 of this machine, and the others are not postgres:// URLs. Each holds
 * the password `hunter2-secret`, which must never be printed.
 */
export const REFUSED_DATABASE_URLS: readonly (readonly [url: string, message: RegExp])[] = [
  [
    "postgres://agent:hunter2-secret@127.0.0.1:1/outpost",
    /Cannot connect to the database at postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/outpost \(OUTPOST_DATABASE_URL\): .*ECONNREFUSED/,
  ],
  [
    "mysql://agent:hunter2-secret@127.0.0.1/outpost",
    /OUTPOST_DATABASE_URL must be a postgres:\/\/ URL, not mysql:\/\/agent:\*\*\*@127\.0\.0\.1\/outpost\./,
  ],
  ["hunter2-secret", /OUTPOST_DATABASE_URL must be a postgres:\/\/ URL, not \(not a URL\)\./],
];

/**
 * Runs `deno <args>` with `env` and each of `cases` as `OUTPOST_DATABASE_URL`, and checks that it
 * stops with exit code 2 and the case's message, never printing the password nor listening.
 */
export async function assertRefusesDatabaseUrls(
  args: string[],
  env: Record<string, string>,
  cases: readonly (readonly [url: string, message: RegExp])[],
): Promise<void> {
  for (const [url, message] of cases) {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args,
      env: { NO_COLOR: "1", ...env, OUTPOST_DATABASE_URL: url },
      clearEnv: true,
      stdin: "null",
    }).output();
    const [out, err] = [stdout, stderr].map((bytes) => new TextDecoder().decode(bytes));
    assert.equal(code, 2, err);
    assert.match(err, message);
    assert.doesNotMatch(out + err, /hunter2/, "the password is never printed");
    assert.doesNotMatch(out, /listening/);
  }
}
