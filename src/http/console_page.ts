/**
 * The operator console: one HTML page with a small script and no build step. It asks for
 * the operator token once and keeps it in the tab's `sessionStorage` (until Sign out), then
 * follows `questions/events` with `fetch` (not `EventSource`, which cannot send an
 * `Authorization` header; a token in the URL would end up in logs and history). All question
 * text is rendered with `textContent`, never as HTML. The script is `console_script.ts` and the
 * style `console_style.ts`, both served minified (`console_min.ts`, written from them by
 * `tests/support/console_build.ts`): inline under a nonce by the app (`console_route.ts`), as
 * files of their own beside the page on the Worker (`edge/cloudflare/app/console_assets.ts`).
 * `style` and `script` are the elements that bring them in.
 */
export function consolePage(style: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Outpost — questions</title>
${style}
</head>
<body>
<header>
<div class="brand"><h1>Outpost questions</h1><span class="count" id="count" aria-live="polite"></span></div>
<div class="tools"><span class="status" id="status">Not connected</span><button type="button" class="link" id="notify" hidden>Turn on notifications</button><span class="status" id="notify-state" hidden></span><button type="button" class="link" id="signout" hidden>Sign out</button></div>
</header>
<main>
<form id="login" class="card" hidden>
<label for="token">Operator token</label>
<input id="token" type="password" autocomplete="current-password" required>
<p class="error" id="login-error" hidden></p>
<div class="actions"><button class="primary" type="submit">Connect</button></div>
</form>
<section id="questions" aria-live="polite"></section>
<p class="empty" id="empty" hidden>No questions waiting.</p>
<section id="history-section" hidden><h2>Recently resolved</h2><ol id="history"></ol></section>
</main>
${script}
</body>
</html>
`;
}

/**
 * The headers the console page is served with: a policy that lets it run the script and style
 * of `sources` (a nonce, or `'self'` for files of the page's origin), talk to this origin only,
 * and be framed by nobody; never cached, and no referrer.
 */
export function consoleHeaders(sources: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": `default-src 'none'; script-src ${sources}; style-src ${sources}; ` +
      "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}
