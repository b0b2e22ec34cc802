import { FENCE_BEGIN, FENCE_END, formatToolError } from "../../mod.ts";

/** The parts of an answer or error outside the fence: our words and what we quote in them. */
export function outside(text: string): string {
  const begin = text.indexOf(FENCE_BEGIN);
  if (begin < 0) return text;
  return text.slice(0, begin) + text.slice(text.indexOf(FENCE_END, begin) + FENCE_END.length);
}

/** Runs one call and returns what the model would see, answer or error. */
export async function seen(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    return formatToolError(error);
  }
}
