import type { AccessLogEntry } from "../../src/access_log.ts";
import type { QuestionChannel } from "../../src/human/question_channel.ts";

// What an agent did just before it asked: a bounded memory of each session's (and run's) latest
// tool calls, fed by the access log and attached to the questions its calls ask, so that the
// operator answers knowing the context. In memory, per process — on Workers per isolate, so a
// session whose calls land on several isolates shows only those this one saw: best effort.

/** The calls remembered per session. */
const PER_SESSION = 10;
/** The sessions remembered; the one least recently heard from goes first. */
const SESSIONS = 1000;

/** What the service remembers, and a channel that attaches it to the questions asked. */
export interface RecentCalls {
  /** Remembers a call that ended; a call without a session or run id is nobody's to recall. */
  note(entry: AccessLogEntry): void;
  /** `channel`, with each question asked through it carrying its tenant and session's calls. */
  attach(channel: QuestionChannel, tenant: string): QuestionChannel;
}

/** An empty memory of recent calls. */
export function recentCalls(): RecentCalls {
  const sessions = new Map<string, AccessLogEntry[]>();
  const key = (tenant: string, ids: { sessionId?: string; runId?: string }) =>
    JSON.stringify([tenant, ids.sessionId, ids.runId]);
  return {
    note(entry) {
      if (!entry.sessionId && !entry.runId) return;
      const at = key(entry.tenant, entry);
      const calls = sessions.get(at) ?? [];
      // Set again, so that the map's order is the order sessions were last heard from.
      sessions.delete(at);
      sessions.set(at, calls);
      if (calls.push(entry) > PER_SESSION) calls.shift();
      if (sessions.size > SESSIONS) sessions.delete(sessions.keys().next().value!);
    },
    attach: (channel, tenant) =>
      new Proxy(channel, {
        get(target, name) {
          if (name === "ask") {
            return (request: Parameters<QuestionChannel["ask"]>[0], options?: object) => {
              const calls = sessions.get(key(tenant, request));
              return target.ask({
                ...request,
                context: { tenant, ...(calls && { recentCalls: [...calls] }) },
              }, options);
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
  };
}
