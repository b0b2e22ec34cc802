import type { AccessLogEntry } from "../../src/access_log.ts";
import type {
  QuestionChannel,
  QuestionContext,
  RecentCall,
} from "../../src/human/question_channel.ts";

// What an agent did just before it asked: a bounded memory of each session's (and run's) latest
// tool calls, fed by the access log and attached to the questions its calls ask, so that the
// operator answers knowing the context. In memory, per process — on Workers per isolate, so a
// session whose calls land on several isolates shows only those this one saw: best effort.

/** The calls remembered per session. */
const PER_SESSION = 10;
/** The sessions remembered; the one least recently heard from goes first. */
const SESSIONS = 1000;

/** The latest tool calls of each session, as their access-log entries tell them. */
export class RecentCalls {
  #calls = new Map<string, RecentCall[]>();

  /** Remembers a call that ended; a call without a session or run id is nobody's to recall. */
  note(entry: AccessLogEntry): void {
    const key = keyOf(entry.tenant, entry);
    if (key === undefined) return;
    const calls = this.#calls.get(key) ?? [];
    // Set again, so that the map's order is the order sessions were last heard from.
    this.#calls.delete(key);
    this.#calls.set(key, calls);
    const { time, tool, outcome, errorCode, host } = entry;
    // An absent code or host stays undefined, which JSON (every store, the API) leaves out.
    calls.push({ time, tool, outcome, errorCode, host });
    if (calls.length > PER_SESSION) calls.shift();
    if (this.#calls.size > SESSIONS) this.#calls.delete(this.#calls.keys().next().value!);
  }

  /** The context of a question asked by a call of `tenant` with these ids. */
  context(tenant: string, ids: { sessionId?: string; runId?: string }): QuestionContext {
    const calls = this.#calls.get(keyOf(tenant, ids)!);
    return { tenant, ...(calls ? { recentCalls: [...calls] } : {}) };
  }
}

function keyOf(tenant: string, { sessionId, runId }: { sessionId?: string; runId?: string }) {
  return sessionId === undefined && runId === undefined
    ? undefined
    : JSON.stringify([tenant, sessionId, runId]);
}

/** `channel`, with each question asked through it carrying its context from `recent`. */
export function withContext(
  channel: QuestionChannel,
  recent: RecentCalls,
  tenant: string,
): QuestionChannel {
  return new Proxy(channel, {
    get(target, key) {
      if (key === "ask") {
        return (
          request: Parameters<QuestionChannel["ask"]>[0],
          options?: { signal?: AbortSignal },
        ) => target.ask({ ...request, context: recent.context(tenant, request) }, options);
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
