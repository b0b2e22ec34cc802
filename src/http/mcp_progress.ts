import type { ProgressUpdate } from "../tool_context.ts";

/** Where a call's progress notifications go: the request being served. */
export interface ProgressSink {
  /** Sends a notification related to the request. */
  sendNotification(
    notification: { method: string; params?: Record<string, unknown> },
  ): Promise<void>;
}

/**
 * Sends a call's progress notifications: what the tool last reported and how long the call has
 * run, e.g. "Waiting for an operator, 2 min". Each also keeps the client's request timer from
 * running out (`resetTimeoutOnProgress`) and proxies from closing an idle stream.
 */
export class ProgressReporter {
  readonly #extra: ProgressSink;
  readonly #token: string | number;
  readonly #started = Date.now();
  #update: ProgressUpdate = { message: "Working" };
  #sent = 0;

  /** Reports to `extra` for the call whose `_meta` carries the progress token `token`. */
  constructor(extra: ProgressSink, token: string | number) {
    this.#extra = extra;
    this.#token = token;
  }

  update(update: ProgressUpdate): void {
    this.#update = update;
  }

  send(): void {
    const { message, progress, total } = this.#update;
    // Progress must grow with every notification; a tool's own count is used while it does.
    const counted = progress !== undefined && progress > this.#sent;
    this.#sent = counted ? progress : this.#sent + 1;
    this.#extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken: this.#token,
        progress: this.#sent,
        ...(counted && total !== undefined ? { total } : {}),
        message: `${message}, ${elapsed(Date.now() - this.#started)}`,
      },
    }).catch(() => {/* The client is gone; the call itself decides what happens. */});
  }
}

/** "12 s", "2 min", "1 h 5 min". */
function elapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
