/**
 * The Worker of bench/tenant_scale.ts: the service as edge/cloudflare/app/worker.ts builds it
 * (`createServiceApp`, a Durable Object per tenant), with two differences for measuring: each
 * request to a Durable Object is counted by its operation (`GET /__counts` reads them), and the
 * wait slice is `SLICE_MS` instead of 30 s, so that minutes of waiting take seconds.
 *
 * @module
 */
import type { AppExecutionContext } from "../src/http/mod.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { createServiceApp } from "../edge/service/service_app.ts";
import {
  DurableObjectQuestionChannel,
  QuestionChannelObject,
} from "../edge/cloudflare/question_channel.ts";
import type { DurableObjectNamespaceLike } from "../edge/cloudflare/question_channel_options.ts";

export { QuestionChannelObject };

/** Requests to the Durable Objects, by operation, since the isolate started. */
const counts: Record<string, number> = {};

function counted(namespace: DurableObjectNamespaceLike): DurableObjectNamespaceLike {
  return {
    idFromName: (name) => namespace.idFromName(name),
    get: (id) => {
      const stub = namespace.get(id);
      return {
        fetch: (input, init) => {
          const op = new URL(input).pathname.slice(1);
          counts[op] = (counts[op] ?? 0) + 1;
          return stub.fetch(input, init);
        },
      };
    },
  };
}

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx?: AppExecutionContext) {
    if (new URL(request.url).pathname === "/__counts") return Response.json(counts);
    const namespace = counted(env.OUTPOST_QUESTIONS as DurableObjectNamespaceLike);
    const waitSliceMs = Number(env.SLICE_MS);
    const app = createServiceApp(
      readServiceSettings(env),
      {
        channelFor: (tenant) =>
          new DurableObjectQuestionChannel(namespace, tenant, { waitSliceMs }),
      },
      "",
      true,
    );
    return app.fetch(request, env, ctx);
  },
};
