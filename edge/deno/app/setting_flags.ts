/**
 * The command-line flags that `deno task start` and `deno task fetch` share: each stands for one
 * of the service's environment names (`SERVICE_SETTING_NAMES`) and wins over it.
 *
 * @module
 */
import { SERVICE_SETTING_NAMES, type ServiceSettings } from "../../service/service_settings.ts";
import { parseCount } from "../../service/setting_values.ts";

/** The `parseArgs` options of the shared flags. */
export const SETTING_FLAGS = {
  "max-chars": { type: "string" },
  "fetch-timeout": { type: "string" },
  "allow-private-network": { type: "boolean" },
  "respect-robots": { type: "boolean" },
} as const;

/** `settings` with the shared flags given in `values` in place of their variables. */
export function withSettingFlags(
  settings: ServiceSettings,
  values: Readonly<Record<string, unknown>>,
): ServiceSettings {
  const count = (name: string): number | undefined => {
    const value = values[name];
    return typeof value === "string" ? parseCount(value, `--${name}`) : undefined;
  };
  const toggle = (name: string): boolean | undefined => {
    const value = values[name];
    return typeof value === "boolean" ? value : undefined;
  };
  return {
    ...settings,
    allowPrivateNetwork: toggle("allow-private-network") ?? settings.allowPrivateNetwork,
    respectRobots: toggle("respect-robots") ?? settings.respectRobots,
    maxChars: count("max-chars") ?? settings.maxChars,
    fetchTimeoutMs: count("fetch-timeout") ?? settings.fetchTimeoutMs,
  };
}

/** What an entry prints when web_fetch may reach private addresses. */
export const PRIVATE_NETWORK_WARNING = "Warning: web_fetch may reach loopback and private " +
  `addresses (--allow-private-network, ${SERVICE_SETTING_NAMES.allowPrivateNetwork}): for ` +
  "local development only.";
