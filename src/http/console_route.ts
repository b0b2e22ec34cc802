import { CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN } from "./console_min.ts";
import { consoleHeaders, consolePage } from "./console_page.ts";

/**
 * `GET /`: the operator console, its script and style inline under a fresh nonce, which the
 * page's policy names as the only ones it may run.
 */
export function inlineConsole(): Response {
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  return new Response(
    consolePage(
      `<style nonce="${nonce}">${CONSOLE_STYLE_MIN}</style>`,
      `<script nonce="${nonce}">${CONSOLE_SCRIPT_MIN}</script>`,
    ),
    { headers: consoleHeaders(`'nonce-${nonce}'`) },
  );
}
