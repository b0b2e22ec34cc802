/**
 * The operator console's script, as the page inlines it (under a CSP nonce, no build step). It
 * uses only the operator API: `questions/events` for what changes, `questions/:id` for the
 * record of a question that was resolved elsewhere, and the answer and cancel routes. What it
 * keeps lives in the tab's `sessionStorage`: the token, and the questions this tab saw resolved
 * (the history), so a reload keeps both and closing the tab forgets them.
 *
 * Written as plain browser JavaScript in a string: no `${` and no backticks inside.
 */
export const CONSOLE_SCRIPT = String.raw`
"use strict";
const TOKEN_KEY = "outpost-operator-token";
const HISTORY_KEY = "outpost-console-history";
const SEEN_KEY = "outpost-console-notified";
const HISTORY_SIZE = 50;
const TITLE = document.title;
const $ = (id) => document.getElementById(id);
/** id → the card's state: { q, node, text, checks, buttons, error, notice, sending, resolved } */
const cards = new Map();
let token = sessionStorage.getItem(TOKEN_KEY);
let stream;
let history = readList(HISTORY_KEY);
const notified = new Set(readList(SEEN_KEY));

function readList(key) {
  try {
    const value = JSON.parse(sessionStorage.getItem(key) || "[]");
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

function el(tag, props, children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children || []) if (child) node.append(child);
  return node;
}

function clip(text, length) { return text.length > length ? text.slice(0, length) + "…" : text; }
function setStatus(text) { $("status").textContent = text; }
function authHeaders(extra) { return Object.assign({ authorization: "Bearer " + token }, extra); }

// ---- Times

function clock(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const today = date.toDateString() === new Date().toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function age(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return "";
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return minutes + " min ago";
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return hours + " h " + (minutes % 60) + " min ago";
  return Math.floor(hours / 24) + " d " + (hours % 24) + " h ago";
}

function refreshAges() {
  for (const node of document.querySelectorAll("[data-age]")) node.textContent = age(node.dataset.age);
}
setInterval(refreshAges, 15000);

// ---- Counts, title and notifications

function waiting() {
  let count = 0;
  for (const state of cards.values()) if (!state.resolved) count++;
  return count;
}

function refresh() {
  const count = waiting();
  document.title = count ? "(" + count + ") " + TITLE : TITLE;
  $("count").textContent = token && count ? count + " waiting" : "";
  $("empty").hidden = !token || cards.size > 0;
  $("signout").hidden = !token;
  const canNotify = "Notification" in window;
  $("notify").hidden = !token || !canNotify || Notification.permission !== "default";
  $("notify-state").hidden = !token || !canNotify || Notification.permission === "default";
  if (canNotify) {
    $("notify-state").textContent = Notification.permission === "granted"
      ? "Notifications on"
      : "Notifications blocked by the browser";
  }
}

$("notify").addEventListener("click", async () => {
  await Notification.requestPermission();
  refresh();
});

/** One desktop notification per question, while the operator looks elsewhere. */
function notify(q) {
  if (notified.has(q.id)) return;
  notified.add(q.id);
  sessionStorage.setItem(SEEN_KEY, JSON.stringify([...notified].slice(-200)));
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  const notification = new Notification("A question is waiting", { body: clip(q.question, 180), tag: q.id });
  notification.onclick = () => { window.focus(); notification.close(); };
}

// ---- Login and sign-out

function showLogin(message) {
  token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  if (stream) stream.abort();
  for (const state of cards.values()) state.node.remove();
  cards.clear();
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  setStatus("Not connected");
  refresh();
  $("token").focus();
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  $("login").hidden = true;
  listen();
});

$("signout").addEventListener("click", () => {
  // What this tab saw is the operator's: it goes with the token.
  history = [];
  notified.clear();
  sessionStorage.removeItem(HISTORY_KEY);
  sessionStorage.removeItem(SEEN_KEY);
  renderHistory();
  showLogin();
});

// ---- History

function remember(entry) {
  history = [entry, ...history.filter((old) => old.id !== entry.id)].slice(0, HISTORY_SIZE);
  sessionStorage.setItem(HISTORY_KEY, JSON.stringify(history));
  renderHistory();
}

function outcomeText(entry) {
  if (entry.status === "answered") return entry.answer;
  if (entry.status === "cancelled") return entry.reason ? "Reason: " + entry.reason : "";
  return "The agent stopped waiting before anyone answered.";
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren(...history.map((entry) => {
    const label = { answered: "Answered", cancelled: "Cancelled", withdrawn: "Withdrawn" }[entry.status] || entry.status;
    return el("li", { className: "entry" }, [
      el("div", { className: "entry-head" }, [
        el("span", { className: "badge " + entry.status, textContent: label }),
        el("span", { className: "by", textContent: entry.mine ? "by you" : "elsewhere" }),
        el("time", { dateTime: entry.resolvedAt, textContent: clock(entry.resolvedAt) }),
      ]),
      el("p", { className: "entry-question", textContent: entry.question }),
      el("p", { className: "entry-outcome", textContent: outcomeText(entry) }),
    ]);
  }));
  $("history-section").hidden = !token || history.length === 0;
}

// ---- Cards

function addQuestion(q) {
  if (cards.has(q.id)) return;
  const state = { q, sending: false, resolved: false, remote: null, checks: [], buttons: [] };
  state.error = el("p", { className: "error", hidden: true });
  state.text = el("textarea", { placeholder: q.options.length ? "Or write an answer" : "Your answer" });
  state.text.setAttribute("aria-label", "Free-text answer");
  const options = el("div", { className: "options" });
  for (const option of q.options) {
    const parts = [el("span", {}, [el("strong", { textContent: option.label }), option.description ? el("small", { textContent: option.description }) : null])];
    if (q.multiSelect) {
      const box = el("input", { type: "checkbox", value: option.label });
      state.checks.push(box);
      options.append(el("label", { className: "option" }, [box, ...parts]));
    } else {
      const button = el("button", { type: "button", className: "option" }, parts);
      button.addEventListener("click", () => send(state, "answer", { answer: option.label }));
      state.buttons.push(button);
      options.append(button);
    }
  }
  const answer = el("button", { type: "button", className: "primary", textContent: "Answer" });
  answer.addEventListener("click", () => {
    const lines = state.checks.filter((box) => box.checked).map((box) => box.value);
    if (state.text.value.trim()) lines.push(state.text.value.trim());
    if (lines.length === 0) {
      showError(state, q.multiSelect ? "Choose options or write an answer." : "Write an answer first.");
      return;
    }
    send(state, "answer", { answer: lines.join("\n") });
  });
  const cancel = el("button", { type: "button", className: "secondary", textContent: "Cancel question" });
  state.actions = el("div", { className: "actions" }, [answer, cancel]);
  state.buttons.push(answer, cancel);

  // Cancelling asks first, and takes a reason that the model is shown.
  state.reason = el("input", { type: "text", maxLength: 2000, placeholder: "e.g. out of scope for this run" });
  const reasonId = "reason-" + Math.random().toString(36).slice(2);
  state.reason.id = reasonId;
  const confirm = el("button", { type: "button", className: "danger", textContent: "Yes, cancel it" });
  const keep = el("button", { type: "button", className: "secondary", textContent: "Keep it" });
  state.confirm = el("div", { className: "confirm", hidden: true }, [
    el("p", { textContent: "Cancel this question? The agent is told it was cancelled, with your reason." }),
    el("label", { htmlFor: reasonId, textContent: "Reason for the agent (optional)" }),
    state.reason,
    el("div", { className: "actions" }, [confirm, keep]),
  ]);
  state.buttons.push(confirm, keep);
  cancel.addEventListener("click", () => {
    state.confirm.hidden = false;
    state.actions.hidden = true;
    state.reason.focus();
  });
  keep.addEventListener("click", () => {
    state.confirm.hidden = true;
    state.actions.hidden = false;
  });
  confirm.addEventListener("click", () => {
    const reason = state.reason.value.trim();
    send(state, "cancel", reason ? { reason } : {});
  });

  const who = [q.sessionId && "session " + q.sessionId, q.runId && "run " + q.runId, q.toolCallId && "call " + q.toolCallId].filter(Boolean).join(" · ");
  state.notice = el("div", { className: "notice", hidden: true });
  state.node = el("article", { className: "card" }, [
    state.notice,
    el("p", { className: "question", textContent: q.question }),
    el("div", { className: "meta" }, [
      "Asked ",
      el("time", { dateTime: q.askedAt, textContent: clock(q.askedAt) }),
      " · ",
      el("span", { className: "age", textContent: age(q.askedAt) }),
      who ? " · " + who : null,
    ]),
    q.options.length ? options : null,
    state.text,
    state.actions,
    state.confirm,
    state.error,
  ]);
  state.node.querySelector(".age").dataset.age = q.askedAt;
  state.node.dataset.id = q.id;
  cards.set(q.id, state);
  $("questions").append(state.node);
  notify(q);
  refresh();
}

function showError(state, message) {
  state.error.textContent = message;
  state.error.hidden = false;
}

/** Whether the operator has started an answer here that a vanishing card would lose. */
function hasInput(state) {
  return state.text.value.trim() !== "" || state.checks.some((box) => box.checked) ||
    (!state.confirm.hidden && state.reason.value.trim() !== "");
}

function removeCard(state) {
  state.node.remove();
  cards.delete(state.q.id);
  refresh();
}

/**
 * The question was resolved by someone else: record it, and keep the card, saying so, if the
 * operator tried to answer or cancel it here or has started to.
 */
function resolvedElsewhere(state, outcome) {
  if (state.resolved) return;
  remember(Object.assign({ id: state.q.id, question: state.q.question, mine: false }, outcome));
  if (!state.attempt && !hasInput(state)) {
    removeCard(state);
    return;
  }
  state.resolved = true;
  state.node.classList.add("resolved");
  const when = outcome.resolvedAt ? " at " + clock(outcome.resolvedAt) : "";
  const parts = outcome.status === "answered"
    ? [el("strong", { textContent: "Already answered by someone else" + when + "." }), " The agent received:", el("blockquote", { textContent: outcome.answer })]
    : outcome.status === "cancelled"
    ? [el("strong", { textContent: "Already cancelled" + when + "." }), outcome.reason ? " Reason: " + outcome.reason : ""]
    : [el("strong", { textContent: "No longer waiting." }), " The agent stopped waiting for this question before anyone answered."];
  const kept = state.attempt
    ? state.attempt + " was not sent." + (hasInput(state) ? " What you typed stays below." : "")
    : "What you typed was not sent; it stays below.";
  state.notice.replaceChildren(...parts, el("p", { className: "kept", textContent: kept }));
  state.notice.hidden = false;
  state.notice.setAttribute("role", "status");
  for (const input of [...state.buttons, ...state.checks]) input.disabled = true;
  state.text.readOnly = true;
  state.reason.readOnly = true;
  const dismiss = el("button", { type: "button", className: "secondary", textContent: "Dismiss" });
  dismiss.addEventListener("click", () => removeCard(state));
  state.actions.replaceChildren(dismiss);
  state.actions.hidden = false;
  state.error.hidden = true;
  refresh();
}

/** Asks the server what became of a question that is no longer pending. */
async function lookUp(state) {
  try {
    const response = await fetch("questions/" + encodeURIComponent(state.q.id), { headers: authHeaders(), cache: "no-store" });
    if (response.status === 401) { showLogin("The token was not accepted."); return; }
    if (response.status === 404) { resolvedElsewhere(state, { status: "withdrawn", resolvedAt: new Date().toISOString() }); return; }
    if (!response.ok) throw new Error("HTTP " + response.status);
    const record = await response.json();
    if (record.status === "pending") return;
    resolvedElsewhere(state, { status: record.status, answer: record.answer, reason: record.reason, resolvedAt: record.resolvedAt });
  } catch {
    // The stream reports the outcome when it reconnects.
  }
}

async function send(state, action, body) {
  if (state.sending || state.resolved) return;
  state.error.hidden = true;
  state.sending = true;
  state.attempt = action === "answer" ? "Your answer “" + clip(body.answer, 200) + "”" : "Your cancel";
  for (const button of state.buttons) button.disabled = true;
  let response;
  try {
    response = await fetch("questions/" + encodeURIComponent(state.q.id) + "/" + action, {
      method: "POST",
      headers: authHeaders({ "content-type": "application/json" }),
      body: JSON.stringify(body),
    });
  } catch {
    response = null;
  }
  state.sending = false;
  if (!state.resolved) for (const button of state.buttons) button.disabled = false;
  if (!response) {
    state.attempt = null;
    showError(state, "Could not reach the server; try again.");
    return;
  }
  if (response.status === 401) { showLogin("The token was not accepted."); return; }
  if (response.ok) {
    state.attempt = null;
    remember({
      id: state.q.id,
      question: state.q.question,
      mine: true,
      status: action === "answer" ? "answered" : "cancelled",
      answer: body.answer,
      reason: body.reason || "",
      resolvedAt: (state.remote && state.remote.resolvedAt) || new Date().toISOString(),
    });
    removeCard(state);
    return;
  }
  if (response.status === 409 || response.status === 404) {
    // Someone else was first: show what they decided, and keep what was entered here.
    if (state.remote) resolvedElsewhere(state, state.remote);
    else await lookUp(state);
    return;
  }
  state.attempt = null;
  const problem = await response.json().catch(() => ({}));
  showError(state, problem.error || "The server answered " + response.status + ".");
}

/** An answered or cancelled event: ours once our request returns, else someone else's. */
function resolvedEvent(status, payload) {
  const state = cards.get(payload.id);
  if (!state) return;
  const outcome = { status, answer: payload.answer, reason: payload.reason, resolvedAt: payload.resolvedAt };
  if (state.sending) state.remote = outcome;
  else resolvedElsewhere(state, outcome);
}

/**
 * The stream starts over (a fresh connection, or a reset): it will list what is pending. A card
 * the operator has not touched can go, since it comes back if still pending; a card with input
 * stays, and the server says whether its question is still open.
 */
function startOver() {
  for (const state of [...cards.values()]) {
    if (state.resolved || state.sending) continue;
    if (hasInput(state)) lookUp(state);
    else removeCard(state);
  }
}

// ---- The event stream

async function listen() {
  const controller = new AbortController();
  stream = controller;
  let lastId = null;
  let retry = 2000;
  refresh();
  renderHistory();
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
      if (lastId === null) startOver();
      setStatus("Live");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let event = { type: "message", data: [], id: null };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
          if (line === "") {
            if (event.id !== null) lastId = event.id;
            if (event.data.length) dispatch(event.type, event.data.join("\n"));
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
          else if (field === "retry" && /^\d+$/.test(data)) retry = Number(data);
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
  if (type === "reset") startOver();
  else if (type === "asked") addQuestion(payload);
  else if (type === "answered" || type === "cancelled") resolvedEvent(type, payload);
}

renderHistory();
if (token) listen(); else showLogin();
`;
