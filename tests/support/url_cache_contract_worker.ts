import { type KvNamespaceLike, WorkersKvUrlCache } from "../../edge/cloudflare/mod.ts";
import { urlCacheContract } from "../../src/testing/mod.ts";

/**
 * A Worker that runs the UrlCache contract inside workerd, on its own KV binding: `GET /` lists
 * the cases, `GET /?case=<name>` runs that one and answers `{ failure }` (none when it passed).
 */
export default {
  async fetch(request: Request, env: { OUTPOST_URL_CACHE: KvNamespaceLike }): Promise<Response> {
    const wanted = new URL(request.url).searchParams.get("case");
    const names: string[] = [];
    let failure: string | undefined;
    await urlCacheContract({
      name: "WorkersKvUrlCache",
      // Each case under a prefix of its own: the namespace is shared by every request.
      create: () => ({
        cache: new WorkersKvUrlCache(env.OUTPOST_URL_CACHE, { prefix: `${crypto.randomUUID()}:` }),
      }),
      test: async (name, fn) => {
        names.push(name);
        if (name !== wanted) return;
        try {
          await fn();
        } catch (error) {
          failure = error instanceof Error ? error.stack ?? error.message : String(error);
        }
      },
    });
    return Response.json(wanted === null ? { names } : { failure });
  },
};
