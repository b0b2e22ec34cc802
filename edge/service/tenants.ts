import { SetupError } from "../../src/errors.ts";
import type { CallLimits } from "../../src/http/call_limiter.ts";
import { parseToolNames, type ServiceToolName } from "./service_settings.ts";
import { parseRate } from "./setting_values.ts";

/** The tenant of a deployment configured without `OUTPOST_TENANTS`. */
export const DEFAULT_TENANT = "default";

/** One team served by a deployment, as an entry of `OUTPOST_TENANTS` describes it. */
export interface Tenant {
  /** Names the tenant in the access log and keys its channel and cache. */
  id: string;
  /** The tokens its agents call the tools with. */
  toolTokens: readonly string[];
  /** The token of its operators; needed where it is offered `ask_human`. */
  operatorToken?: string;
  /** The tools it is offered (default: the deployment's). */
  tools?: readonly ServiceToolName[];
  /** The domain rules `web_fetch` and `web_search` apply for it, allow or block. */
  allowedDomains?: readonly string[];
  blockedDomains?: readonly string[];
  /**
   * Limits on each of its tool tokens' calls, in place of the deployment's: given as
   * `{"rate": "60/min", "concurrency": 4}` (`rate` as `OUTPOST_RATE_LIMIT` takes it), each one
   * left out keeps the deployment's.
   */
  limits?: CallLimits;
}

const FIELDS = [
  "id",
  "toolTokens",
  "operatorToken",
  "tools",
  "allowedDomains",
  "blockedDomains",
  "limits",
];
const LIMIT_FIELDS = ["rate", "concurrency"];
const ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const TOKEN = /^\S{16,}$/;

/**
 * Parses `OUTPOST_TENANTS` (named `source`): a JSON array of {@linkcode Tenant} entries. Throws
 * `SetupError` naming the entry and field for malformed JSON, an unknown field, a repeated id,
 * or a token that is short, repeated, or shared by two entries — never quoting a token.
 */
export function parseTenants(text: string, source: string): Tenant[] {
  const fail = (message: string, hint?: string): never => {
    throw new SetupError(`${source}${message}`, {
      hint: hint ??
        'It takes a JSON array such as [{"id": "team-a", "toolTokens": ["…"], "operatorToken": "…"}].',
    });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the text, tokens and all: give only the position.
    const at = /position (\d+)/.exec(String(error))?.[1];
    fail(` is not valid JSON${at ? ` (at character ${at})` : ""}.`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) fail(" must be a non-empty JSON array.");
  const owners = new Map<string, string>();
  return (parsed as unknown[]).map((entry, index) => {
    let where = `entry ${index + 1}`;
    const bad = (message: string, hint?: string) => fail(`: ${where} ${message}`, hint);
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      return bad("must be an object.");
    }
    const given = entry as Record<string, unknown>;
    const { id, toolTokens, operatorToken, tools, allowedDomains, blockedDomains, limits } = given;
    if (typeof id !== "string" || !ID.test(id)) {
      return bad(
        "needs an `id` of 1 to 63 lower-case letters, digits, `-` and `_`.",
      );
    }
    where = `tenant ${JSON.stringify(id)}`;
    if (owners.has(`id ${id}`)) bad("is listed twice.");
    owners.set(`id ${id}`, id);
    for (const key of Object.keys(given)) {
      if (!FIELDS.includes(key)) {
        bad(`has an unknown field, ${JSON.stringify(key.slice(0, 40))}.`, `Known: ${FIELDS}.`);
      }
    }
    const token = (value: unknown, field: string) => {
      if (typeof value !== "string" || !TOKEN.test(value)) {
        bad(`has a \`${field}\` that is no token of at least 16 characters without spaces.`);
      }
      const owner = owners.get(`token ${value}`);
      if (owner !== undefined) {
        bad(
          owner === id ? `uses one token twice.` : `shares a token with tenant "${owner}".`,
          "Give each tenant, and each of its tools and operators, a token of its own.",
        );
      }
      owners.set(`token ${value}`, id);
      return value as string;
    };
    if (!Array.isArray(toolTokens) || toolTokens.length === 0) {
      bad("needs `toolTokens`, a non-empty array of tokens.");
    }
    const tenant: Tenant = {
      id,
      toolTokens: (toolTokens as unknown[]).map((value) => token(value, "toolTokens")),
    };
    if (operatorToken !== undefined) tenant.operatorToken = token(operatorToken, "operatorToken");
    if (tools !== undefined) {
      if (
        !Array.isArray(tools) || tools.some((name) => typeof name !== "string" || /,/.test(name))
      ) {
        bad("needs `tools` as an array of tool names.");
      }
      tenant.tools = parseToolNames((tools as string[]).join(), `${source}: ${where}'s \`tools\``);
    }
    if (allowedDomains !== undefined && blockedDomains !== undefined) {
      bad("has both `allowedDomains` and `blockedDomains`; an allow list already blocks the rest.");
    }
    for (
      const [field, list] of [["allowedDomains", allowedDomains], [
        "blockedDomains",
        blockedDomains,
      ]] as const
    ) {
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.some((rule) => typeof rule !== "string")) {
        bad(`needs \`${field}\` as an array of domain rules.`);
      }
      tenant[field] = list as string[];
    }
    if (limits !== undefined) {
      if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
        bad("needs `limits` as an object.");
      }
      const { rate, concurrency, ...rest } = limits as Record<string, unknown>;
      const unknown = Object.keys(rest)[0];
      if (unknown !== undefined) {
        bad(
          `has an unknown field in \`limits\`, ${JSON.stringify(unknown.slice(0, 40))}.`,
          `Known: ${LIMIT_FIELDS}.`,
        );
      }
      if (rate !== undefined && typeof rate !== "string") {
        bad('needs `limits.rate` as a rate such as "60/min".');
      }
      if (
        concurrency !== undefined &&
        !(Number.isSafeInteger(concurrency) && (concurrency as number) > 0)
      ) {
        bad("needs `limits.concurrency` as a positive whole number.");
      }
      tenant.limits = {
        ...(rate === undefined
          ? {}
          : { rate: parseRate(rate as string, `${source}: ${where}'s \`limits.rate\``) }),
        ...(concurrency === undefined ? {} : { concurrency: concurrency as number }),
      };
    }
    return tenant;
  });
}
