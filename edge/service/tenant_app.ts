import { bearerOf, oneOfTokens } from "../../src/http/auth.ts";
import type { OutpostApp } from "../../src/http/app.ts";
import type { Tenant } from "./tenants.ts";

/**
 * One app in front of each tenant's own: a request goes to the app of the tenant whose token it
 * bears, so that each tenant's questions, history, event streams and operator API are its
 * app's alone. Every token of every tenant is compared in full, so the time taken tells no
 * tenant from another. A request bearing no tenant's token goes to the first tenant's app,
 * which serves what needs no token (the console page, CORS preflights) and refuses the rest.
 * Apps are built on first use by `build`.
 */
export function tenantApp(
  tenants: readonly Tenant[],
  build: (tenant: Tenant) => OutpostApp,
): OutpostApp {
  const apps = new Map<Tenant, OutpostApp>();
  const appOf = (tenant: Tenant) => {
    let app = apps.get(tenant);
    if (!app) apps.set(tenant, app = build(tenant));
    return app;
  };
  const tokens = tenants.map((t) =>
    t.operatorToken ? [...t.toolTokens, t.operatorToken] : t.toolTokens
  );
  return {
    fetch: (request, env, ctx) => {
      const presented = bearerOf(request);
      let match = tenants[0];
      for (const [index, tenant] of tenants.entries()) {
        if (oneOfTokens(tokens[index], presented)) match = tenant;
      }
      return appOf(match).fetch(request, env, ctx);
    },
    close: () => apps.forEach((app) => app.close()),
    drain: async (graceMs) => {
      await Promise.all([...apps.values()].map((app) => app.drain(graceMs)));
    },
  };
}
