import { type KvNamespaceLike, WorkersKvUrlCache } from "../../edge/cloudflare/mod.ts";
import { type ContractCase, urlCacheContract } from "../../src/testing/mod.ts";

/**
 * A Worker that runs the UrlCache contract inside workerd, on its own KV binding: `GET /` lists
 * the cases (`{ name, ignore }`), `GET /?case=<name>` runs one and answers `{ failure }` (none
 * when it passed).
 */
export default {
  async fetch(request: Request, env: { OUTPOST_URL_CACHE: KvNamespaceLike }): Promise<Response> {
    const cases: ContractCase[] = [];
    urlCacheContract({
      name: "WorkersKvUrlCache",
      // Each case under a prefix of its own: the namespace is shared by every request.
      create: () => ({
        cache: new WorkersKvUrlCache(env.OUTPOST_URL_CACHE, { prefix: `${crypto.randomUUID()}:` }),
      }),
      test: (definition) => cases.push(definition),
      // KV expires entries on its own time.
      readsClock: false,
    });
    const wanted = new URL(request.url).searchParams.get("case");
    if (wanted === null) {
      return Response.json({ cases: cases.map(({ name, ignore }) => ({ name, ignore })) });
    }
    const found = cases.find((c) => c.name === wanted && !c.ignore);
    if (!found) return Response.json({ failure: `no case named ${wanted}` });
    try {
      await found.fn();
      return Response.json({});
    } catch (error) {
      const failure = error instanceof Error ? error.stack ?? error.message : String(error);
      return Response.json({ failure });
    }
  },
};
