import type { ToolError } from "../errors.ts";
import type { UrlPolicy } from "../url_policy.ts";
import type { BrowserSettings } from "./browser_reader_options.ts";
import type { CdpConnection } from "./cdp.ts";

/** What a render has seen so far. */
export interface RenderState {
  /** The page's own document: the last response to its top frame. */
  document?: { url: string; status: number; mimeType: string };
  /** Why the page itself (or a redirect of it) was refused. */
  refusal?: ToolError;
  bytes: number;
  capped: boolean;
  loaderId?: string;
  /** Lifecycle events that came before the navigation said which loader is the page's. */
  lifecycle: { name: string; loaderId: string }[];
}

/** What the handlers of one render's browser events share. */
export interface Render {
  cdp: CdpConnection;
  /** The page's tab: its target, whose id is also its top frame's, and its session. */
  tab: { targetId: string; sessionId: string };
  state: RenderState;
  /** The URL asked for. */
  target: URL;
  policy: UrlPolicy | undefined;
  signal: AbortSignal;
  settings: BrowserSettings;
}
