import { HttpReader } from "../../src/fetch/http_reader.ts";
import type { ResolveHost } from "../../src/fetch/address_guard.ts";
import type { BodyDecoder } from "../../src/fetch/body_decoder.ts";
import type { UrlCache } from "../../src/fetch/url_cache.ts";
import type { PageReader } from "../../src/fetch/page.ts";
import { webFetch } from "../../src/fetch/web_fetch.ts";
import type { Clock } from "../../src/clock.ts";

import { askHuman } from "../../src/human/ask_human.ts";
import type { QuestionChannel } from "../../src/human/question_channel.ts";
import { recentCalls } from "./recent_calls.ts";
import { webSearch } from "../../src/search/web_search.ts";
import { now } from "../../src/time/now.ts";
import { SetupError } from "../../src/errors.ts";
import type { Tool } from "../../src/tool.ts";
import { type AppOptions, createApp, type OutpostApp } from "../../src/http/app.ts";
import { searchBackend } from "./search_choice.ts";
import type { CallTelemetry } from "../../src/call_telemetry.ts";
import type { AccessLogEntry } from "../../src/access_log.ts";
import type { Tracer } from "../../src/tracer.ts";
import type { CallLimiter, CallLimits } from "../../src/http/call_limiter.ts";
import type { UrlPolicy } from "../../src/url_policy.ts";
import { RuleList } from "../../src/hosted/rule_list.ts";
import { DEFAULT_TENANT, type Tenant } from "./tenants.ts";
import { tenantApp } from "./tenant_app.ts";
import { tenantCache } from "./tenant_cache.ts";
import {
  DEFAULT_ASK_TIMEOUT_MS,
  SERVICE_SETTING_NAMES,
  SERVICE_TOOL_NAMES,
  type ServiceSettings,
} from "./service_settings.ts";

/**
 * What a runtime gives {@linkcode serviceTools} besides the settings: its stores and, where it
 * has one, a DNS resolver for the address guard.
 */
export interface ServiceParts {
  /** Where `web_fetch` keeps pages (default: in memory, per instance). */
  cache?: UrlCache;
  /**
   * A channel that spans the deployment's instances, for `ask_human`. Without one `ask_human`
   * is not served, and asking for it in `tools` is a `SetupError`.
   */
  channel?: QuestionChannel;
  /**
   * Each tenant's own channel, by tenant id (`default` without `settings.tenants`); `channel`
   * would mix the questions of several tenants, so it serves only a deployment without them.
   */
  channelFor?: (tenant: string) => QuestionChannel;
  /**
   * Builds a tenant's domain policy from its rules: `DomainPolicy.allow` or `.block` from
   * `./hosted`, which also refuses a rule naming a public suffix (`co.uk`). Without it the rules
   * are applied the same way, validated in all but that (the Worker leaves it out: the public
   * suffix list it needs does not fit the Worker's size budget).
   */
  domainPolicy?: (mode: "allow" | "block", rules: readonly string[]) => UrlPolicy;
  /** Lets the address guard check the addresses a name resolves to. */
  resolveHost?: ResolveHost;
  /** The `fetch` that `web_fetch` and `web_search` use (default: the global one). */
  fetch?: typeof fetch;
  /** Readers for bodies `web_fetch` does not read itself, e.g. `pdfDecoder()` from `./pdf`. */
  decoders?: readonly BodyDecoder[];
  /** Times `ask_human`'s timeout (default the system's clock). */
  clock?: Clock;
  /**
   * Builds `web_fetch`'s reader around the plain one, e.g. a `BrowserReader` for pages built by
   * JavaScript (default: the plain one). A function, so that bundles without it stay small.
   */
  reader?: (plain: PageReader) => PageReader;
  /** Traces tool calls and their requests (the runtime's OpenTelemetry, where it has one). */
  tracer?: Tracer;
  /** Where the access log's lines go (default `console.log`). */
  log?: (line: string) => void;
  /**
   * Builds the limiter that admits a tenant's tool calls within `limits` (each tool token's:
   * {@linkcode serviceLimits}), the runtime's own: in memory per instance on Deno and Vercel
   * (the default there), Cloudflare's binding or the tenant's Durable Object on the Worker.
   */
  limiterFor?: (tenant: string, limits: CallLimits) => CallLimiter;
}

/**
 * The limits on each tool token's calls: the deployment's, each of them replaced by the one
 * `tenant` sets, if any; `undefined` for none.
 */
export function serviceLimits(settings: ServiceSettings, tenant?: Tenant): CallLimits | undefined {
  const { rate, concurrency } = {
    rate: settings.rateLimit,
    concurrency: settings.concurrencyLimit,
    ...tenant?.limits,
  };
  return rate || concurrency ? { rate, concurrency } : undefined;
}

/**
 * The telemetry a deployment runs with: the access log as JSON lines through `parts.log`
 * (`console.log` by default) unless `settings.accessLog` is `false`, and `parts.tracer`. The
 * calls also feed the recent calls that `ask_human`'s questions carry as their context: pass
 * the deployment's channel in `parts` for that to go on with the log turned off.
 */
export function serviceTelemetry(settings: ServiceSettings, parts: ServiceParts): CallTelemetry {
  const log = parts.log ?? ((line: string) => console.log(line));
  const logged = settings.accessLog !== false;
  // The calls also feed what the questions of their session show the operator: with a channel
  // (`parts.channel`) even when the log is off.
  const accessLog = (entry: AccessLogEntry) => {
    recent.note(entry);
    if (logged) log(JSON.stringify(entry));
  };
  return {
    ...(logged || parts.channel ? { accessLog } : {}),
    ...(parts.tracer ? { tracer: parts.tracer } : {}),
  };
}

/** The recent calls of this process's (or isolate's) sessions, for the context of questions. */
const recent = recentCalls();

/**
 * Builds the tools a deployment serves from its settings and parts, the same on every runtime:
 * `web_fetch`, `web_search` (on the backend of {@linkcode chosenSearch}), `now`, and `ask_human`
 * where there is a channel (waiting at most `settings.askTimeoutMs`) — or those named in
 * `settings.tools`, in that order; `policy` guards `web_fetch` and `web_search`, and `tenant` names
 * whose questions `ask_human` asks.
 */
export function serviceTools(
  settings: ServiceSettings,
  parts: ServiceParts,
  policy?: UrlPolicy,
  tenant: string = DEFAULT_TENANT,
): Tool[] {
  const names = settings.tools ??
    SERVICE_TOOL_NAMES.filter((name) => name !== "ask_human" || parts.channel);
  return names.map((name) => {
    switch (name) {
      case "web_fetch": {
        const http = new HttpReader({
          cache: parts.cache,
          resolveHost: parts.resolveHost,
          fetch: parts.fetch,
          decoders: parts.decoders,
          allowPrivateNetwork: settings.allowPrivateNetwork,
          timeoutMs: settings.fetchTimeoutMs,
          respectRobots: settings.respectRobots ?? false,
        });
        return webFetch(parts.reader?.(http) ?? http, { maxChars: settings.maxChars, policy });
      }
      case "web_search":
        return webSearch(
          searchBackend(settings, parts, SERVICE_SETTING_NAMES.allowPrivateNetwork),
          { policy },
        );
      case "now":
        return now;
      case "ask_human":
        if (!parts.channel) {
          throw new SetupError("ask_human needs a question channel that spans instances.", {
            hint: "Leave ask_human out of the tools, or deploy where a durable channel exists.",
          });
        }
        return askHuman(recent.attach(parts.channel, tenant), {
          timeoutMs: settings.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
          clock: parts.clock,
        });
    }
  });
}

/**
 * Builds the app a deployment serves from its settings and parts, the same on every runtime: the
 * tools of {@linkcode serviceTools}, the channel's operator API and console, and the tokens —
 * for each of `settings.tenants`, an app of its own (its channel from `parts.channelFor`, its
 * cache keys apart, its domain rules) behind {@linkcode tenantApp}. Throws `SetupError` naming
 * the environment variable to set for a token that is missing (the operator token is needed
 * only with a channel) or shorter than 16 characters; `setHint` says how to set one where the
 * deployment runs. Each tenant's app is built at once, or on its first request when `lazy` (a
 * Worker, which builds the app for each request).
 */
export function createServiceApp(
  settings: ServiceSettings,
  parts: ServiceParts,
  setHint: string,
  lazy = false,
): OutpostApp {
  return serviceAppOn(createApp, settings, parts, setHint, lazy);
}

/**
 * {@linkcode createServiceApp}, each app built by `build`: the Worker's builds them without the
 * console page, which it serves as static assets.
 */
export function serviceAppOn(
  build: (options: AppOptions) => OutpostApp,
  settings: ServiceSettings,
  parts: ServiceParts,
  setHint: string,
  lazy: boolean,
): OutpostApp {
  const { toolToken, operatorToken, tenants } = settings;
  const hint = (names: string[]) =>
    `Set ${names.join(" and ")} (random, at least 16 characters each, different) ${setHint}.`;
  if (tenants) {
    if (toolToken || operatorToken) {
      throw new SetupError(
        `${SERVICE_SETTING_NAMES.tenants} gives each tenant its tokens: leave ${SERVICE_SETTING_NAMES.toolToken} and ${SERVICE_SETTING_NAMES.operatorToken} unset.`,
      );
    }
    if (parts.channel && !parts.channelFor) {
      throw new SetupError("One question channel would mix the questions of every tenant.", {
        hint: "Give each tenant its own channel (channelFor).",
      });
    }
    // What each tenant needs is checked for all at once, even where apps are built lazily.
    const policies = new Map<Tenant, UrlPolicy | undefined>();
    for (const tenant of tenants) {
      const named = `${SERVICE_SETTING_NAMES.tenants}: tenant ${JSON.stringify(tenant.id)}`;
      const tools = tenant.tools ?? settings.tools;
      if (parts.channelFor && !tenant.operatorToken && !(tools && !tools.includes("ask_human"))) {
        throw new SetupError(`${named} needs an \`operatorToken\`: it is offered ask_human.`, {
          hint: "Add one, or leave ask_human out of its `tools`.",
        });
      }
      policies.set(tenant, tenantPolicy(tenant, parts, named));
    }
    const built = new Map<Tenant, OutpostApp>();
    const appOf = (tenant: Tenant) =>
      built.get(tenant) ?? tenantOwnApp(build, settings, parts, tenant, policies.get(tenant));
    if (!lazy) { for (const tenant of tenants) built.set(tenant, appOf(tenant)); }
    return tenantApp(tenants, appOf);
  }
  const missing = [
    ...(toolToken ? [] : [SERVICE_SETTING_NAMES.toolToken]),
    ...(operatorToken || !(parts.channel ?? parts.channelFor)
      ? []
      : [SERVICE_SETTING_NAMES.operatorToken]),
  ];
  if (!toolToken || missing.length > 0) {
    throw new SetupError(
      `Outpost is not configured: ${missing.join(" and ")} ${
        missing.length > 1 ? "are" : "is"
      } not set.`,
      { hint: hint(missing) },
    );
  }
  for (const key of ["toolToken", "operatorToken"] as const) {
    if ((settings[key]?.length ?? 16) < 16) {
      throw new SetupError(`${SERVICE_SETTING_NAMES[key]} is too short.`, {
        hint: hint([SERVICE_SETTING_NAMES[key]]),
      });
    }
  }
  return tenantOwnApp(build, settings, parts, {
    id: DEFAULT_TENANT,
    toolTokens: [toolToken],
    operatorToken,
  });
}

/**
 * A tenant's domain rules as the policy `web_fetch` and `web_search` apply: `parts.domainPolicy`'s,
 * else a {@linkcode RuleList}, which matches the same without the public suffix list. Throws
 * `SetupError` naming the tenant (`named`) and the rule.
 */
export function tenantPolicy(
  tenant: Tenant,
  parts: ServiceParts,
  named: string,
): UrlPolicy | undefined {
  const { allowedDomains, blockedDomains } = tenant;
  const rules = allowedDomains ?? blockedDomains;
  if (!rules) return undefined;
  const mode = allowedDomains ? "allow" : "block";
  try {
    return parts.domainPolicy?.(mode, rules) ?? ruleList(mode, rules);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    throw new SetupError(`${named}: ${error.message}`, { hint: error.hint });
  }
}

/**
 * The Worker builds its app for every request: a list of rules is validated and compiled once per
 * isolate (50 tenants of 10 rules took about 12 ms each time), kept by its text.
 */
const ruleLists = new Map<string, RuleList>();
const MAX_RULE_LISTS = 1_000;

function ruleList(mode: "allow" | "block", rules: readonly string[]): RuleList {
  const key = `${mode} ${JSON.stringify(rules)}`;
  let list = ruleLists.get(key);
  if (!list) {
    // Settings change only with a new deployment: past this many lists, something churns them.
    if (ruleLists.size >= MAX_RULE_LISTS) ruleLists.clear();
    ruleLists.set(key, list = new RuleList(mode, rules, `${mode}edDomains`));
  }
  return list;
}

/** What one tenant is served, whatever carries it (an app, or the stdio MCP server). */
export interface TenantService {
  /** Its tools, under its domain rules, over its cache keys and channel. */
  tools: Tool[];
  /** Its questions' channel: only where it is offered `ask_human`, or in the default set-up. */
  channel?: QuestionChannel;
  /** The deployment's telemetry, its calls logged under the tenant's id. */
  telemetry: CallTelemetry;
  /** The limits on each of its tool tokens' calls, if any. */
  limits?: CallLimits;
}

/** The tools, channel, telemetry and limits of `tenant`, under `policy`. */
export function tenantService(
  settings: ServiceSettings,
  parts: ServiceParts,
  tenant: Tenant,
  policy?: UrlPolicy,
): TenantService {
  const { id } = tenant;
  const tools = tenant.tools ?? settings.tools;
  // A tenant gets a channel (and so an operator API) only when offered ask_human; the default
  // set-up keeps today's console whatever its tools.
  const channel = !settings.tenants
    ? parts.channel ?? parts.channelFor?.(id)
    : tools && !tools.includes("ask_human")
    ? undefined
    : parts.channelFor?.(id);
  return {
    tools: serviceTools(
      { ...settings, tools },
      { ...parts, channel, cache: parts.cache && tenantCache(parts.cache, id) },
      policy,
      id,
    ),
    channel,
    telemetry: { ...serviceTelemetry(settings, { ...parts, channel }), tenant: id },
    limits: serviceLimits(settings, tenant),
  };
}

/** The app of one tenant: what {@linkcode tenantService} gives it, behind its tokens. */
function tenantOwnApp(
  build: (options: AppOptions) => OutpostApp,
  settings: ServiceSettings,
  parts: ServiceParts,
  tenant: Tenant,
  policy?: UrlPolicy,
): OutpostApp {
  const { tools, channel, telemetry, limits } = tenantService(settings, parts, tenant, policy);
  return build({
    tools,
    channel,
    auth: { toolToken: tenant.toolTokens, operatorToken: tenant.operatorToken },
    telemetry,
    limiter: limits && parts.limiterFor?.(tenant.id, limits),
  });
}
