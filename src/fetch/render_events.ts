import type { CdpConnection, CdpEvent } from "./cdp.ts";
import { decideRequest } from "./request_gate.ts";
import type { Render } from "./render_state.ts";

/** What a render is told of its page: the network went quiet, the page crashed or loaded. */
export interface RenderSignals {
  quiet(): void;
  crashed(): void;
  load(): void;
}

/** Turns on, for one target, what the reader watches: requests, responses, page events. */
export async function watchTarget(
  cdp: CdpConnection,
  sessionId: string,
  frame = true,
): Promise<void> {
  await Promise.all([
    cdp.send(
      "Fetch.enable",
      { patterns: [{ urlPattern: "*" }], handleAuthRequests: true },
      sessionId,
    ),
    cdp.send("Network.enable", {}, sessionId),
    // Workers have no Page domain.
    frame && cdp.send("Page.enable", {}, sessionId),
    // Frames and workers in other processes are targets of their own: they start paused
    // until their requests are watched too.
    cdp.send(
      "Target.setAutoAttach",
      { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
      sessionId,
    ),
  ]);
}

/**
 * Handles one event of a render: requests to check, the proxy's credentials, the document's
 * response, the byte cap, lifecycle, dialogs, new frames and workers, crashes.
 */
export function onRenderEvent(render: Render, event: CdpEvent, on: RenderSignals): void {
  const { cdp, tab, state, settings } = render;
  const { method, params, sessionId } = event;
  const ignore = () => {};
  switch (method) {
    case "Fetch.requestPaused":
      void decideRequest(render, event).catch(ignore);
      break;
    case "Fetch.authRequired": {
      // Only the proxy is answered: a site asking for credentials gets none.
      const proxy = params.authChallenge?.source === "Proxy" && settings.credentials;
      cdp.send("Fetch.continueWithAuth", {
        requestId: params.requestId,
        authChallengeResponse: proxy
          ? { response: "ProvideCredentials", ...settings.credentials }
          : { response: "CancelAuth" },
      }, sessionId).catch(ignore);
      break;
    }
    case "Network.responseReceived":
      if (
        sessionId === tab.sessionId && params.type === "Document" &&
        params.frameId === tab.targetId
      ) {
        const { url, status, mimeType } = params.response ?? {};
        state.document = { url: String(url), status: Number(status), mimeType: String(mimeType) };
      }
      break;
    case "Network.dataReceived":
      state.bytes += Math.max(
        Number(params.dataLength) || 0,
        Number(params.encodedDataLength) || 0,
      );
      if (state.bytes > settings.maxBytes && !state.capped) {
        state.capped = true;
        cdp.send("Page.stopLoading", {}, tab.sessionId).catch(ignore);
        on.quiet();
      }
      break;
    case "Page.lifecycleEvent":
      if (sessionId !== tab.sessionId || params.frameId !== tab.targetId) break;
      if (state.loaderId === undefined) {
        state.lifecycle.push({ name: params.name, loaderId: params.loaderId });
      } else if (params.loaderId === state.loaderId) {
        if (params.name === "networkIdle") on.quiet();
        if (params.name === "load") on.load();
      }
      break;
    case "Page.javascriptDialogOpening":
      // An alert would hold the page (and the read) until the deadline.
      cdp.send("Page.handleJavaScriptDialog", { accept: false }, sessionId).catch(ignore);
      break;
    case "Target.attachedToTarget": {
      // A paused worker answers nothing until it runs, so the watch is asked for and the
      // worker run in one go: the browser takes commands in order.
      const child = params.sessionId as string;
      watchTarget(cdp, child, params.targetInfo?.type === "iframe").catch(ignore);
      cdp.send("Runtime.runIfWaitingForDebugger", {}, child).catch(ignore);
      break;
    }
    case "Inspector.targetCrashed":
      if (sessionId === tab.sessionId) on.crashed();
      break;
  }
}
