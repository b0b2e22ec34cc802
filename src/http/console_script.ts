import { INVISIBLE_SOURCE } from "../show_invisible.ts";
import { CARDS_SCRIPT } from "./console_cards.ts";

/**
 * The operator console's script, which the page inlines (under a CSP nonce) minified, as
 * `console_min.ts` (written from it by `tests/support/console_build.ts`): the
 * state, title, notifications, login and history here, the question cards from
 * `console_cards.ts`, then the event stream. It uses only the operator API: `questions/events`
 * for what changes, `questions/history` for what was resolved before (loaded at each sign-in and
 * reconnect, merged with what the tab sees resolved live), `questions/:id` for the record of a
 * question resolved elsewhere, and the answer and cancel routes. The tab's `sessionStorage` keeps
 * the token alone, so a reload stays signed in; the history is the server's, the same in every
 * tab.
 *
 * Every text the page shows goes through `visible` (in `el`), which writes out invisible and
 * bidirectional-control characters as `showInvisible` does on the server, with its character
 * class: what the operator reads is what the agent gets.
 *
 * Plain browser JavaScript in a raw string: the browser code has no `${` and no backticks.
 */
export const CONSOLE_SCRIPT: string = String.raw`
"use strict";
const TOKEN_KEY = "outpost-operator-token";
const HISTORY_SIZE = 50;
const TITLE = document.title;
const $ = (id) => document.getElementById(id);
/** id → the card's state: { q, node, text, checks, buttons, error, notice, sending, resolved } */
const cards = new Map();
let token = sessionStorage.getItem(TOKEN_KEY);
let stream;
/** Resolved questions shown, newest first: the server's history merged with what this tab saw. */
let history = [];
/** Ids of the questions this tab answered or cancelled itself, for "by you". */
const mine = new Set();
/** Ids of the questions this page notified of, once each. */
const notified = new Set();

const INVISIBLE = new RegExp(${JSON.stringify(INVISIBLE_SOURCE)}, "gu");

/** The text as showInvisible shows it: every invisible or bidi-control character written out. */
function visible(text) {
  return String(text).replace(INVISIBLE, (char) => /^[ \t\n\r]$/.test(char)
    ? char
    : "⟨U+" + char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + "⟩");
}

/** An element; its text (textContent, string children) is shown with visible(). */
function el(tag, props, children) {
  const node = document.createElement(tag);
  const shown = Object.assign({}, props);
  if (typeof shown.textContent === "string") shown.textContent = visible(shown.textContent);
  Object.assign(node, shown);
  for (const child of children || []) if (child) node.append(typeof child === "string" ? visible(child) : child);
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
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  const title = q.kind === "approval" ? "Approval needed" : "A question is waiting";
  const notification = new Notification(title, { body: clip(visible(q.question), 180), tag: q.id });
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
  mine.clear();
  notified.clear();
  renderHistory();
  showLogin();
});

// ---- History

/** Adds resolved questions to the history, once each, newest first. */
function merge(entries) {
  const byId = new Map(history.map((entry) => [entry.id, entry]));
  for (const entry of entries) {
    // The latest word on a question stands; who resolved it only this tab can know.
    const known = byId.get(entry.id);
    byId.set(entry.id, known && !entry.by ? Object.assign({}, entry, { by: known.by }) : entry);
  }
  history = [...byId.values()]
    .sort((a, b) => (Date.parse(b.resolvedAt) || 0) - (Date.parse(a.resolvedAt) || 0))
    .slice(0, HISTORY_SIZE);
  renderHistory();
}

function remember(entry) {
  if (entry.mine) mine.add(entry.id);
  merge([Object.assign({}, entry, { by: entry.mine ? "by you" : "elsewhere" })]);
}

/** Loads what the server lists as recently resolved; a channel without a history lists none. */
async function loadHistory() {
  try {
    const response = await fetch("questions/history?limit=" + HISTORY_SIZE, { headers: authHeaders(), cache: "no-store" });
    if (response.status === 401) { showLogin("The token was not accepted."); return; }
    if (!response.ok) return;
    const { questions } = await response.json();
    merge(questions.map((record) => ({
      id: record.question.id,
      question: record.question.question,
      kind: record.question.kind,
      ...outcomeOf(record),
      by: mine.has(record.question.id) ? "by you" : "",
    })));
  } catch {
    // The next reconnect loads it again.
  }
}

/** What a history entry's badge says: approvals as their decision, withdrawals as such. */
function outcomeStatus(entry) {
  if (entry.status === "answered" && entry.decision) return entry.decision === "approve" ? "approved" : "denied";
  if (entry.status === "cancelled" && entry.withdrawn) return "withdrawn";
  return entry.status;
}

function outcomeText(entry) {
  if (entry.status === "answered" && entry.decision) {
    const reason = entry.reason ? "Reason: " + entry.reason : "";
    return entry.decision === "approve" ? "The call ran." + (reason ? " " + reason : "") : reason || "The call did not run.";
  }
  if (entry.status === "answered") return entry.answer;
  if (entry.status === "cancelled" && entry.withdrawn) return "The agent stopped waiting (" + withdrawal(entry.reason) + ").";
  if (entry.status === "cancelled") return entry.reason ? "Reason: " + entry.reason : "";
  return "The agent stopped waiting before anyone answered.";
}

/** A withdrawal's reason, without the word its records start it with. */
function withdrawal(reason) {
  return (reason || "").replace(/^withdrawn: /, "");
}

/** The question as the history lists it: an approval as the call it asked about. */
function historyQuestion(entry) {
  const parts = entry.kind === "approval" ? approvalParts(entry.question) : null;
  return parts ? "Run " + parts.tool + " with " + parts.input.replace(/\s+/g, " ") : entry.question;
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren(...history.map((entry) => {
    const status = outcomeStatus(entry);
    const label = { answered: "Answered", cancelled: "Cancelled", withdrawn: "Withdrawn", approved: "Approved", denied: "Denied" }[status] || status;
    return el("li", { className: "entry" }, [
      el("div", { className: "entry-head" }, [
        el("span", { className: "badge " + status, textContent: label }),
        entry.by ? el("span", { className: "by", textContent: entry.by }) : null,
        el("time", { dateTime: entry.resolvedAt, textContent: clock(entry.resolvedAt) }),
      ]),
      el("p", { className: "entry-question", textContent: historyQuestion(entry) }),
      el("p", { className: "entry-outcome", textContent: outcomeText(entry) }),
    ]);
  }));
  $("history-section").hidden = !token || history.length === 0;
}

${CARDS_SCRIPT}

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
      // What was resolved while this tab was closed or away.
      loadHistory();
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
