import { ToolError } from "../errors.ts";
import { policyRefusal } from "../url_policy.ts";
import { guardUrl } from "./address_guard.ts";
import type { CdpEvent } from "./cdp.ts";
import type { Render } from "./render_state.ts";

/** URL schemes a page may load: the network ones, checked below, and in-page data. */
const NETWORK_SCHEME = /^(?:https?|wss?):$/;
const LOCAL_SCHEME = /^(?:data|blob|about):$/;

/**
 * Lets a request the browser paused (`Fetch.requestPaused`) go on, or fails it when the guard
 * or, for the page's own document, the policy refuses it; that refusal is kept as the render's.
 */
export async function decideRequest(
  { cdp, tab, state, target, policy, signal, settings }: Render,
  { params, sessionId }: CdpEvent,
): Promise<void> {
  const requestId = params.requestId;
  const main = sessionId === tab.sessionId && params.resourceType === "Document" &&
    params.frameId === tab.targetId;
  try {
    const url = new URL(String(params.request?.url));
    if (NETWORK_SCHEME.test(url.protocol)) {
      if (main && policy && !policy.permits(url.href)) {
        throw policyRefusal(url.href, url.href === target.href ? undefined : target.href);
      }
      if (settings.guard) await guardUrl(url, settings.resolveHost, signal);
    } else if (!LOCAL_SCHEME.test(url.protocol)) {
      throw new ToolError(`The page asked for a ${url.protocol} URL, which is not read.`);
    }
  } catch (error) {
    if (main && error instanceof ToolError) state.refusal ??= error;
    await cdp.send("Fetch.failRequest", { requestId, errorReason: "AccessDenied" }, sessionId);
    return;
  }
  await cdp.send("Fetch.continueRequest", { requestId }, sessionId);
}
