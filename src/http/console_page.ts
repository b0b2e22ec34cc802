/**
 * The operator console: one HTML page with a small inline script and no build step. It asks for
 * the operator token once and keeps it in the tab's `sessionStorage`, then follows
 * `questions/events` with `fetch` (not `EventSource`, which cannot send an `Authorization`
 * header; a token in the URL would end up in logs and history). All question text is rendered
 * with `textContent`, never as HTML.
 */
export function consolePage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Outpost — questions</title>
<style nonce="${nonce}">
:root { color-scheme: light dark; --accent: #2563eb; --muted: #6b7280; --line: #d1d5db; --card: #fff; --bg: #f3f4f6; }
@media (prefers-color-scheme: dark) { :root { --line: #374151; --card: #1f2937; --bg: #111827; --muted: #9ca3af; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); }
header { display: flex; align-items: center; justify-content: space-between; gap: .5rem; padding: .75rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); position: sticky; top: 0; }
h1 { font-size: 1.1rem; margin: 0; }
main { max-width: 42rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1rem; }
.status { font-size: .85rem; color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: 1rem; display: grid; gap: .75rem; }
.question { font-size: 1.05rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.meta { font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
.options { display: grid; gap: .5rem; }
.option { display: flex; gap: .6rem; align-items: flex-start; width: 100%; text-align: left; padding: .7rem .8rem; border: 1px solid var(--line); border-radius: .6rem; background: transparent; color: inherit; font: inherit; cursor: pointer; min-height: 44px; }
button.option:hover, label.option:hover { border-color: var(--accent); }
.option input { margin-top: .3rem; width: 1.1rem; height: 1.1rem; }
.option small { display: block; color: var(--muted); }
textarea, input[type=password] { width: 100%; font: inherit; padding: .6rem; border: 1px solid var(--line); border-radius: .6rem; background: transparent; color: inherit; }
textarea { min-height: 4.5rem; resize: vertical; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; }
.actions button, form button { font: inherit; padding: .6rem 1.1rem; border-radius: .6rem; border: 1px solid var(--accent); min-height: 44px; cursor: pointer; }
.primary { background: var(--accent); color: #fff; }
.secondary { background: transparent; color: inherit; border-color: var(--line) !important; }
.error { color: #dc2626; font-size: .9rem; margin: 0; }
.empty { text-align: center; color: var(--muted); padding: 2rem 0; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<header><h1>Outpost questions</h1><span class="status" id="status">Not connected</span></header>
<main>
<form id="login" class="card" hidden>
<label for="token">Operator token</label>
<input id="token" type="password" autocomplete="current-password" required>
<p class="error" id="login-error" hidden></p>
<div class="actions"><button class="primary" type="submit">Connect</button></div>
</form>
<section id="questions" aria-live="polite"></section>
<p class="empty" id="empty" hidden>No questions waiting.</p>
</main>
<script nonce="${nonce}">
"use strict";
const KEY = "outpost-operator-token";
const $ = (id) => document.getElementById(id);
const cards = new Map();
let token = sessionStorage.getItem(KEY);
let stream;

function setStatus(text) { $("status").textContent = text; }
function refreshEmpty() { $("empty").hidden = !token || cards.size > 0; }
function authHeaders(extra) { return Object.assign({ authorization: "Bearer " + token }, extra); }

function showLogin(message) {
  token = null;
  sessionStorage.removeItem(KEY);
  if (stream) stream.abort();
  for (const card of cards.values()) card.remove();
  cards.clear();
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  setStatus("Not connected");
  refreshEmpty();
  $("token").focus();
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  if (!token) return;
  sessionStorage.setItem(KEY, token);
  $("token").value = "";
  $("login").hidden = true;
  listen();
});

function el(tag, props, children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children || []) node.append(child);
  return node;
}

function addQuestion(q) {
  if (cards.has(q.id)) return;
  const error = el("p", { className: "error", hidden: true });
  const text = el("textarea", { placeholder: q.options.length ? "Or write an answer" : "Your answer" });
  text.setAttribute("aria-label", "Free-text answer");
  const checks = [];
  const options = el("div", { className: "options" });
  for (const option of q.options) {
    const parts = [el("span", {}, [el("strong", { textContent: option.label }), option.description ? el("small", { textContent: option.description }) : ""])];
    if (q.multiSelect) {
      const box = el("input", { type: "checkbox", value: option.label });
      checks.push(box);
      options.append(el("label", { className: "option" }, [box, ...parts]));
    } else {
      const button = el("button", { type: "button", className: "option" }, parts);
      button.addEventListener("click", () => send(q.id, "answer", { answer: option.label }, error));
      options.append(button);
    }
  }
  const answer = el("button", { type: "button", className: "primary", textContent: "Answer" });
  answer.addEventListener("click", () => {
    const lines = checks.filter((box) => box.checked).map((box) => box.value);
    if (text.value.trim()) lines.push(text.value.trim());
    if (lines.length === 0) { showError(error, q.multiSelect ? "Choose options or write an answer." : "Write an answer first."); return; }
    send(q.id, "answer", { answer: lines.join("\\n") }, error);
  });
  const cancel = el("button", { type: "button", className: "secondary", textContent: "Cancel question" });
  cancel.addEventListener("click", () => send(q.id, "cancel", {}, error));
  const who = [q.sessionId && "session " + q.sessionId, q.runId && "run " + q.runId, q.toolCallId && "call " + q.toolCallId].filter(Boolean).join(" · ");
  const card = el("article", { className: "card" }, [
    el("p", { className: "question", textContent: q.question }),
    el("div", { className: "meta", textContent: "Asked " + new Date(q.askedAt).toLocaleString() + (who ? " · " + who : "") }),
    q.options.length ? options : "",
    text,
    el("div", { className: "actions" }, [answer, cancel]),
    error,
  ]);
  card.dataset.id = q.id;
  cards.set(q.id, card);
  $("questions").append(card);
  refreshEmpty();
}

function clearQuestions() {
  for (const id of [...cards.keys()]) removeQuestion(id);
}

function removeQuestion(id) {
  const card = cards.get(id);
  if (card) card.remove();
  cards.delete(id);
  refreshEmpty();
}

function showError(node, message) { node.textContent = message; node.hidden = false; }

async function send(id, action, body, error) {
  error.hidden = true;
  let response;
  try {
    response = await fetch("questions/" + encodeURIComponent(id) + "/" + action, {
      method: "POST",
      headers: authHeaders({ "content-type": "application/json" }),
      body: JSON.stringify(body),
    });
  } catch {
    showError(error, "Could not reach the server; try again.");
    return;
  }
  if (response.status === 401) { showLogin("The token was not accepted."); return; }
  if (response.ok || response.status === 404 || response.status === 409) { removeQuestion(id); return; }
  const problem = await response.json().catch(() => ({}));
  showError(error, problem.error || "The server answered " + response.status + ".");
}

async function listen() {
  const controller = new AbortController();
  stream = controller;
  let lastId = null;
  let retry = 2000;
  refreshEmpty();
  while (!controller.signal.aborted) {
    try {
      setStatus("Connecting…");
      const headers = authHeaders({ accept: "text/event-stream" });
      if (lastId !== null) headers["last-event-id"] = lastId;
      const response = await fetch("questions/events", { headers, signal: controller.signal, cache: "no-store" });
      if (response.status === 401) { showLogin("The token was not accepted."); return; }
      if (!response.ok || !response.body) {
        // A refused resume (a cursor the server cannot take) must not be retried as it is.
        if (response.status >= 400 && response.status < 500) lastId = null;
        throw new Error("HTTP " + response.status);
      }
      // Without a cursor the stream starts with every pending question.
      if (lastId === null) clearQuestions();
      setStatus("Live");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let event = { type: "message", data: [], id: null };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.search(/\\r\\n|\\r|\\n/)) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + (buffer.startsWith("\\r\\n", end) ? 2 : 1));
          if (line === "") {
            if (event.id !== null) lastId = event.id;
            if (event.data.length) dispatch(event.type, event.data.join("\\n"));
            event = { type: "message", data: [], id: null };
            continue;
          }
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const data = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event.type = data;
          else if (field === "data") event.data.push(data);
          else if (field === "id") event.id = data;
          else if (field === "retry" && /^\\d+$/.test(data)) retry = Number(data);
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
    }
    setStatus("Reconnecting…");
    await new Promise((resolve) => setTimeout(resolve, retry));
  }
}

function dispatch(type, data) {
  const payload = JSON.parse(data);
  if (type === "reset") clearQuestions();
  else if (type === "asked") addQuestion(payload);
  else if (type === "answered" || type === "cancelled") removeQuestion(payload.id);
}

if (token) listen(); else showLogin();
</script>
</body>
</html>
`;
}
