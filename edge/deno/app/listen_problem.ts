import { SetupError } from "../../../mod.ts";

const HOST_HINT =
  "Use --host 127.0.0.1 (this machine only) or an address of one of its interfaces.";

/** What a failure to listen means for the operator, or `undefined` for an unexpected one. */
export function listenProblem(
  error: unknown,
  config: { host: string; port: number },
): SetupError | undefined {
  const where = `${config.host}:${config.port}`;
  if (error instanceof Deno.errors.AddrInUse) {
    return new SetupError(`Port ${config.port} is already in use (${where}).`, {
      hint: "Another program, perhaps another Outpost, listens there: stop it, or pick another " +
        `port, e.g.\n  deno task start --port ${config.port < 65535 ? config.port + 1 : 8787}\n` +
        "(--port 0 picks a free one).",
    });
  }
  if (error instanceof Deno.errors.AddrNotAvailable) {
    return new SetupError(`Cannot listen on ${config.host}: no such address on this machine.`, {
      hint: HOST_HINT,
    });
  }
  if (error instanceof Error && /failed to lookup address/i.test(error.message)) {
    return new SetupError(`Cannot listen on ${config.host}: the name does not resolve.`, {
      hint: HOST_HINT,
    });
  }
  if (error instanceof Deno.errors.PermissionDenied && config.port > 0 && config.port < 1024) {
    return new SetupError(`Port ${config.port} needs root privileges (${where}).`, {
      hint: "Use a port of 1024 or above, e.g. --port 8787, behind a proxy if need be.",
    });
  }
  return undefined;
}
