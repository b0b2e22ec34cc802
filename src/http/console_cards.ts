/**
 * The console's question cards, part of the script in `console_script.ts` (whose helpers they
 * use): one card per pending question, with its options, free text, answer and a cancel that
 * asks first; approvals as their own card; and what a card shows when its question was resolved
 * by someone else, or while the operator was typing.
 */
export const CARDS_SCRIPT: string = String.raw`
// ---- Cards

function newState(q) {
  const state = { q, sending: false, resolved: false, remote: null, text: null, checks: [], buttons: [] };
  state.error = el("p", { className: "error", hidden: true });
  state.notice = el("div", { className: "notice", hidden: true });
  return state;
}

/**
 * A box that asks before a refusal (a cancel, a denial) and takes a reason the model is shown.
 * Enter in it confirms, Escape goes back.
 */
function reasonBox(state, text, confirmLabel, backLabel, onConfirm) {
  state.reason = el("input", { type: "text", placeholder: "e.g. out of scope for this run" });
  state.reason.id = "reason-" + Math.random().toString(36).slice(2);
  const confirm = el("button", { type: "button", className: "danger", textContent: confirmLabel });
  const back = el("button", { type: "button", className: "secondary", textContent: backLabel });
  state.confirm = el("div", { className: "confirm", hidden: true }, [
    el("p", { textContent: text }),
    el("label", { htmlFor: state.reason.id, textContent: "Reason for the agent (optional)" }),
    state.reason,
    el("div", { className: "actions" }, [confirm, back]),
  ]);
  state.buttons.push(confirm, back);
  back.addEventListener("click", () => {
    state.confirm.hidden = true;
    state.actions.hidden = false;
  });
  confirm.addEventListener("click", () => onConfirm(state.reason.value.trim()));
  state.reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); confirm.click(); }
    else if (event.key === "Escape") back.click();
  });
  return () => {
    state.confirm.hidden = false;
    state.actions.hidden = true;
    state.reason.focus();
  };
}

/** When and by whom it was asked, and what the asking session did just before (its latest calls). */
function meta(q) {
  const context = q.context || {};
  const who = [context.tenant && "tenant " + context.tenant, q.sessionId && "session " + q.sessionId, q.runId && "run " + q.runId, q.toolCallId && "call " + q.toolCallId].filter(Boolean).join(" · ");
  const calls = (context.recentCalls || []).map((c) => el("li", { textContent: [clock(c.time), c.tool, c.errorCode || c.outcome, c.host].filter(Boolean).join(" · ") }));
  const since = el("span", { className: "age", textContent: age(q.askedAt) });
  since.dataset.age = q.askedAt;
  return el("div", { className: "meta" }, [
    "Asked ",
    el("time", { dateTime: q.askedAt, textContent: clock(q.askedAt) }),
    " · ",
    since,
    who ? " · " + who : null,
    calls.length ? el("ol", {}, calls) : null,
  ]);
}

function mount(state, className, children) {
  state.node = el("article", { className }, [state.notice, ...children, state.actions, state.confirm, state.error]);
  state.node.dataset.id = state.q.id;
  cards.set(state.q.id, state);
  $("questions").append(state.node);
  notify(state.q);
  refresh();
}

function addQuestion(q) {
  if (cards.has(q.id)) return;
  if (q.kind === "approval") { addApproval(q); return; }
  const state = newState(q);
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
  // Ctrl+Enter (⌘+Enter) answers from the text box.
  state.text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); answer.click(); }
  });
  const cancel = el("button", { type: "button", className: "secondary", textContent: "Cancel question" });
  state.actions = el("div", { className: "actions" }, [answer, cancel]);
  state.buttons.push(answer, cancel);
  const ask = reasonBox(state, "Cancel this question? The agent is told it was cancelled, with your reason.", "Yes, cancel it", "Keep it",
    (reason) => send(state, "cancel", reason ? { reason } : {}));
  cancel.addEventListener("click", ask);
  mount(state, "card", [
    el("p", { className: "question", textContent: q.question }),
    meta(q),
    q.options.length ? options : null,
    state.text,
  ]);
}

/** requireApproval's question: "Allow a call to <tool>?", what the tool does, and the input. */
function approvalParts(text) {
  const match = /^Allow a call to (.+?)\?\n([^]*?)\n\nInput:\n([^]*)$/.exec(text);
  return match ? { tool: match[1], summary: match[2], input: match[3] } : null;
}

/** An approval: the tool and its input, Approve, and Deny with a reason. */
function addApproval(q) {
  const state = newState(q);
  const parts = approvalParts(q.question);
  const approve = el("button", { type: "button", className: "approve", textContent: "Approve" });
  approve.addEventListener("click", () => send(state, "answer", { decision: "approve" }));
  const deny = el("button", { type: "button", className: "danger-outline", textContent: "Deny" });
  state.actions = el("div", { className: "actions" }, [approve, deny]);
  state.buttons.push(approve, deny);
  const ask = reasonBox(state, "Deny this call? It does not run, and the agent is told why.", "Deny the call", "Back",
    (reason) => send(state, "answer", reason ? { decision: "deny", reason } : { decision: "deny" }));
  deny.addEventListener("click", ask);
  const head = parts
    ? [
      el("p", { className: "question" }, ["Run ", el("code", { textContent: parts.tool }), "?"]),
      parts.summary ? el("p", { className: "summary", textContent: parts.summary }) : null,
      el("pre", { className: "input", textContent: parts.input }),
    ]
    : [el("p", { className: "question", textContent: q.question })];
  mount(state, "card approval", [el("span", { className: "badge approval", textContent: "Approval" }), ...head, meta(q)]);
}

function showError(state, message) {
  state.error.textContent = message;
  state.error.hidden = false;
}

/** Whether the operator has started an answer here that a vanishing card would lose. */
function hasInput(state) {
  return (state.text !== null && state.text.value.trim() !== "") || state.checks.some((box) => box.checked) ||
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
  remember(Object.assign({ id: state.q.id, question: state.q.question, kind: state.q.kind, mine: false }, outcome));
  if (!state.attempt && !hasInput(state)) {
    removeCard(state);
    return;
  }
  state.resolved = true;
  state.node.classList.add("resolved");
  const when = outcome.resolvedAt ? " at " + clock(outcome.resolvedAt) : "";
  const parts = outcome.status === "answered" && outcome.decision
    ? [el("strong", { textContent: "Already " + (outcome.decision === "approve" ? "approved" : "denied") + " by someone else" + when + "." }), outcome.reason ? el("span", { textContent: " Reason: " + outcome.reason }) : null]
    : outcome.status === "answered"
    ? [el("strong", { textContent: "Already answered by someone else" + when + "." }), el("span", { textContent: " The agent received:" }), el("blockquote", { textContent: outcome.answer })]
    : outcome.status === "cancelled" && !outcome.withdrawn
    ? [el("strong", { textContent: "Already cancelled" + when + "." }), outcome.reason ? el("span", { textContent: " Reason: " + outcome.reason }) : null]
    : [el("strong", { textContent: "No longer waiting." }), el("span", { textContent: " The agent stopped waiting for this question before anyone answered." })];
  const kept = state.attempt
    ? state.attempt + " was not sent." + (hasInput(state) ? " What you typed stays below." : "")
    : "What you typed was not sent; it stays below.";
  state.notice.replaceChildren(...parts.filter(Boolean), el("p", { className: "kept", textContent: kept }));
  state.notice.hidden = false;
  state.notice.setAttribute("role", "status");
  for (const input of [...state.buttons, ...state.checks]) input.disabled = true;
  if (state.text) state.text.readOnly = true;
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
    resolvedElsewhere(state, outcomeOf(record));
  } catch {
    // The stream reports the outcome when it reconnects.
  }
}

async function send(state, action, body) {
  if (state.sending || state.resolved) return;
  state.error.hidden = true;
  state.sending = true;
  state.attempt = body.decision
    ? (body.decision === "approve" ? "Your approval" : "Your denial")
    : action === "answer" ? "Your answer “" + clip(body.answer, 200) + "”" : "Your cancel";
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
      kind: state.q.kind,
      mine: true,
      status: action === "answer" ? "answered" : "cancelled",
      answer: body.answer,
      decision: body.decision,
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

/** A record's or an event's outcome, its kind and decision as the fields say. */
function outcomeOf(record) {
  return {
    status: record.status,
    answer: record.answer,
    decision: record.decision,
    reason: record.reason,
    withdrawn: record.withdrawn === true,
    resolvedAt: record.resolvedAt,
  };
}

/** An answered or cancelled event: ours once our request returns, else someone else's. */
function resolvedEvent(status, payload) {
  const state = cards.get(payload.id);
  if (!state) return;
  const outcome = outcomeOf(Object.assign({}, payload, { status }));
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
`;
