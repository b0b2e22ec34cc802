import { SetupError } from "../../../src/errors.ts";
import { parseTenants } from "../../service/tenants.ts";
import { SERVICE_SETTING_NAMES, type ServiceSettings } from "../../service/service_settings.ts";

/** The Deno entries' other way to give `OUTPOST_TENANTS`: the path of a file holding it. */
export const TENANTS_FILE_VARIABLE = "OUTPOST_TENANTS_FILE";

/**
 * `settings` with the tenants of the file `OUTPOST_TENANTS_FILE` names in `env`, if it names
 * one. Throws `SetupError` when `OUTPOST_TENANTS` is set too, or the file cannot be read or
 * parsed.
 */
export function withTenantsFile(
  settings: ServiceSettings,
  env: Record<string, string>,
): ServiceSettings {
  const path = env[TENANTS_FILE_VARIABLE]?.trim();
  if (!path) return settings;
  if (settings.tenants) {
    throw new SetupError(
      `Set ${SERVICE_SETTING_NAMES.tenants} or ${TENANTS_FILE_VARIABLE}, not both.`,
    );
  }
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    throw new SetupError(
      `${TENANTS_FILE_VARIABLE} names a file that cannot be read (${
        error instanceof Error ? error.name : "error"
      }).`,
      { hint: "Give the path of a JSON file listing the tenants, readable by the service." },
    );
  }
  return { ...settings, tenants: parseTenants(text, TENANTS_FILE_VARIABLE) };
}
