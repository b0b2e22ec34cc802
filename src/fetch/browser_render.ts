import { quoteText, showUrl } from "../fence.ts";
import { ToolError } from "../errors.ts";
import type { UrlPolicy } from "../url_policy.ts";
import type { BrowserSettings } from "./browser_reader_options.ts";
import { CdpConnection } from "./cdp.ts";
import type { Page } from "./page.ts";
import { htmlPage, type PageForm } from "./page_body.ts";
import { onRenderEvent, watchTarget } from "./render_events.ts";
import type { RenderState } from "./render_state.ts";
import { HTML_TYPE } from "./sniff.ts";

/** The most characters of rendered HTML read back from the browser. */
const MAX_HTML_CHARS = 10_000_000;
/** Reads the rendered document, clipped, in one evaluation. */
const READ_HTML = `(() => {
  const html = document.documentElement ? document.documentElement.outerHTML : "";
  return { html: html.slice(0, ${MAX_HTML_CHARS}), capped: html.length > ${MAX_HTML_CHARS} };
})()`;

/**
 * Renders `target` in a fresh browser context with one tab, closed after: navigates, waits for
 * the network to settle after the load event (or the byte cap), and reads the document back.
 * `undefined` when the document is not HTML. The caller bounds it in time with `signal`.
 */
export async function renderPage(
  settings: BrowserSettings,
  target: URL,
  signal: AbortSignal,
  policy: UrlPolicy | undefined,
  form: PageForm,
): Promise<Page | undefined> {
  const socket = typeof settings.browser === "string"
    ? new WebSocket(settings.browser)
    : await settings.browser(signal);
  const cdp = await CdpConnection.open(socket, signal);
  const hangUp = () => cdp.close();
  signal.addEventListener("abort", hangUp, { once: true });
  // Not Promise.withResolvers: Node 20 lacks it.
  const settled = deferred();
  let cancelSettle = () => {};
  const state: RenderState = { bytes: 0, capped: false, lifecycle: [] };
  let stopListening = () => {};
  let contextId: string | undefined;
  let targetId: string | undefined;
  try {
    ({ browserContextId: contextId } = await cdp.send("Target.createBrowserContext", {
      disposeOnDetach: true,
    }));
    // A link to a file must not start a download into the browser's machine.
    await cdp.send("Browser.setDownloadBehavior", {
      behavior: "deny",
      browserContextId: contextId,
    }).catch(() => {});
    ({ targetId } = await cdp.send("Target.createTarget", {
      url: "about:blank",
      browserContextId: contextId,
    }));
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const tab = { targetId: targetId!, sessionId: sessionId as string };
    const onLoad = () => {
      cancelSettle();
      cancelSettle = settings.clock.setTimer(() => settled.resolve(), settings.settleMs);
    };
    const render = { cdp, tab, state, target, policy, signal, settings };
    stopListening = cdp.on((event) =>
      onRenderEvent(render, event, {
        quiet: () => settled.resolve(),
        crashed: () => settled.reject(new Error("the page crashed")),
        load: onLoad,
      })
    );
    await watchTarget(cdp, sessionId);
    await cdp.send("Page.setLifecycleEventsEnabled", { enabled: true }, sessionId);
    const navigation = await cdp.send("Page.navigate", { url: target.href }, sessionId);
    state.loaderId = navigation.loaderId;
    // Lifecycle events may have come before the navigation's answer.
    for (const name of state.lifecycle.filter((e) => e.loaderId === state.loaderId)) {
      if (name.name === "networkIdle") settled.resolve();
      if (name.name === "load") onLoad();
    }
    if (state.refusal) throw state.refusal;
    const type = state.document?.mimeType?.toLowerCase() ?? "";
    if (state.document && !HTML_TYPE.test(type)) return undefined;
    if (navigation.errorText) {
      throw new ToolError(
        `Could not load ${showUrl(target.href, 300)} in the browser: ${
          quoteText(String(navigation.errorText))
        }.`,
        { hint: "Check the URL, or try again later; the site may be down.", code: "unreachable" },
      );
    }
    await Promise.race([settled.promise, aborted(signal)]);
    if (state.refusal) throw state.refusal;
    const { result, exceptionDetails } = await cdp.send(
      "Runtime.evaluate",
      { expression: READ_HTML, returnByValue: true },
      sessionId,
    );
    if (exceptionDetails || typeof result?.value?.html !== "string") {
      throw new Error("the rendered document could not be read");
    }
    const finalUrl = state.document?.url ?? target.href;
    const rendered = htmlPage(
      result.value.html,
      {
        url: URL.canParse(finalUrl) ? new URL(finalUrl).href : target.href,
        status: state.document?.status ?? 200,
        mediaType: HTML_TYPE.test(type) ? type : "text/html",
        sizeCapped: state.capped || result.value.capped === true,
      },
      form.content,
      form.inlineImages,
      form.links,
    );
    // Every byte the browser loaded for the page (its scripts, styles, data) counts as read.
    return { ...rendered, rendered: true, bytesRead: state.bytes };
  } finally {
    cancelSettle();
    stopListening();
    signal.removeEventListener("abort", hangUp);
    // Closing the connection disposes the context too (`disposeOnDetach`); asking first
    // closes the tab at once on browsers that keep detached contexts a while.
    await Promise.race([
      Promise.allSettled([
        targetId && cdp.send("Target.closeTarget", { targetId }),
        contextId && cdp.send("Target.disposeBrowserContext", { browserContextId: contextId }),
      ]),
      aborted(signal).catch(() => {}),
    ]);
    cdp.close();
  }
}

/** A promise and the functions that settle it. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(error: Error): void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A crash after the read is done must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
