import { showUrl } from "../fence.ts";
import { ToolError } from "../errors.ts";
import { showHost } from "../shown_host.ts";
import { MAX_URL_SHOWN } from "./read_errors.ts";

// The redirect walk's rules: HttpReader follows redirects by hand, so that the address guard and
// the policy see every hop. Refusals name the URL the model asked for (`target`) and hosts only:
// the `Location` and every hop after the first are the site's words.

const MAX_REDIRECTS = 10;

/**
 * Where the redirect `response` from `from` leads, on hop number `hop` of the walk from
 * `target`; `undefined` when it is no redirect. Cancels the redirect's body.
 */
export async function redirectTarget(
  response: Response,
  from: URL,
  target: URL,
  hop: number,
): Promise<URL | undefined> {
  const location = response.headers.get("location");
  if (response.status < 300 || response.status >= 400 || location === null) return undefined;
  await response.body?.cancel();
  if (hop === MAX_REDIRECTS) {
    throw new ToolError(
      `Too many redirects: ${
        showUrl(target.href, MAX_URL_SHOWN)
      } redirected more than ${MAX_REDIRECTS} times.`,
      {
        hint: "The site may be in a redirect loop; try another URL for the same content.",
      },
    );
  }
  return parseRedirect(location, from, target);
}

function parseRedirect(location: string, from: URL, target: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ToolError(
      `Reading ${showUrl(target.href, MAX_URL_SHOWN)}: ${
        showHost(from)
      } redirected to a malformed URL.`,
    );
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new ToolError(
      `Reading ${showUrl(target.href, MAX_URL_SHOWN)}: ${
        showHost(from)
      } redirected to a URL that is not http(s).`,
    );
  }
  return next;
}

/**
 * Refuses an answer that is not the one for `url`: a `fetch` that followed a redirect itself
 * (despite `redirect: "manual"`) would have skipped the guard and the policy on that hop.
 */
export async function refuseFollowed(response: Response, url: URL, target: URL): Promise<void> {
  const moved = response.redirected || (response.url !== "" && !sameDocument(response.url, url));
  if (!moved && response.type !== "opaqueredirect") return;
  await response.body?.cancel().catch(() => {});
  // The model's own URL, and hosts: the hop and where the fetch went are the site's choice.
  const shown = showUrl(target.href, MAX_URL_SHOWN);
  throw new ToolError(
    response.type === "opaqueredirect"
      ? `Reading ${shown}: ${showHost(url)} redirected, and this runtime's fetch hides where to.`
      : `Reading ${shown}: the fetch answered a request to ${showHost(url)} from ${
        response.url ? showHost(response.url) : "another URL"
      }: it followed a redirect itself, which the reader must check hop by hop.`,
    {
      hint: "This is a fault of the reader's set-up, not of the URL; try another source.",
    },
  );
}

/** Whether two URLs name the same document: fetch drops the fragment from `response.url`. */
function sameDocument(url: string, current: URL): boolean {
  const hash = current.href.indexOf("#");
  return url === (hash < 0 ? current.href : current.href.slice(0, hash));
}
