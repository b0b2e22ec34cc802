/** MCP's log levels (RFC 5424's), least severe first. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One of {@linkcode LOG_LEVELS}. */
export type LogLevel = typeof LOG_LEVELS[number];

/**
 * The `notifications/message` that says `message` at `level` for the tool `logger`, or
 * `undefined` when the client asked only for more severe ones (`threshold`).
 */
export function logNotification(
  threshold: LogLevel,
  level: LogLevel,
  logger: string,
  message: string,
): { method: string; params: Record<string, unknown> } | undefined {
  if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) return undefined;
  return { method: "notifications/message", params: { level, logger, data: message } };
}
