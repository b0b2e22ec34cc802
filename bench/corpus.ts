/**
 * Where the shared corpus of real pages lives, for the benchmark and the converter's tests.
 *
 * @module
 */

/**
 * Finds the readability corpus: `$OUTPOST_CORPUS`, else `<repo>/../shared/corpus/readability-pages`,
 * else `/work/shared/corpus/readability-pages`; `undefined` when no copy exists.
 */
export function findCorpus(): string | undefined {
  const candidates = [
    Deno.env.get("OUTPOST_CORPUS"),
    new URL("../../shared/corpus/readability-pages", import.meta.url).pathname,
    "/work/shared/corpus/readability-pages",
  ];
  return candidates.find((dir) => {
    try {
      return dir !== undefined && Deno.statSync(dir).isDirectory;
    } catch {
      return false;
    }
  });
}
