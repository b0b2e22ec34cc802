/**
 * The operator console's style sheet, which the page inlines (under a CSP nonce) minified, as
 * `console_min.ts` (written from it by `tests/support/console_build.ts`): light and dark
 * colours, the header, question and approval cards, their options and confirmations, and the
 * history of resolved questions.
 */
export const CONSOLE_STYLE: string = `
:root { color-scheme: light dark; --accent: #2563eb; --muted: #6b7280; --line: #d1d5db; --card: #fff; --bg: #f3f4f6; --warn-bg: #fef3c7; --warn: #78350f; }
@media (prefers-color-scheme: dark) { :root { --line: #374151; --card: #1f2937; --bg: #111827; --muted: #9ca3af; --warn-bg: #451a03; --warn: #fde68a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, sans-serif; background: var(--bg); }
header { display: flex; align-items: center; justify-content: space-between; flex-wrap: wrap; gap: .25rem .75rem; padding: .6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1; }
.brand, .tools { display: flex; align-items: baseline; gap: .6rem; flex-wrap: wrap; }
h1 { font-size: 1.1rem; margin: 0; }
h2 { font-size: .95rem; margin: .5rem 0 0; color: var(--muted); font-weight: 600; }
main { max-width: 42rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1rem; }
#questions, #history { display: grid; gap: 1rem; }
.status, .count { font-size: .85rem; color: var(--muted); }
.count { color: var(--accent); font-weight: 600; }
.link { font: inherit; font-size: .85rem; background: none; border: 0; padding: .4rem 0; color: var(--accent); cursor: pointer; text-decoration: underline; min-height: 32px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: 1rem; display: grid; gap: .75rem; }
.question { font-size: 1.05rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.meta { font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
/* Ids and a call's input are read character by character: in their stored order, never reordered
   by right-to-left letters in them (which would swap "0987 6543" to "6543 0987"). */
.meta, pre.input { direction: ltr; unicode-bidi: bidi-override; }
.options { display: grid; gap: .5rem; }
.option { display: flex; gap: .6rem; align-items: flex-start; width: 100%; text-align: left; padding: .7rem .8rem; border: 1px solid var(--line); border-radius: .6rem; background: transparent; color: inherit; font: inherit; cursor: pointer; min-height: 44px; }
button.option:hover, label.option:hover { border-color: var(--accent); }
.option input { margin-top: .3rem; width: 1.1rem; height: 1.1rem; }
.option small { display: block; color: var(--muted); }
textarea, input[type=password], .confirm input { width: 100%; font: inherit; padding: .6rem; border: 1px solid var(--line); border-radius: .6rem; background: transparent; color: inherit; }
textarea { min-height: 4.5rem; resize: vertical; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; }
.actions button, form button { font: inherit; padding: .6rem 1.1rem; border-radius: .6rem; border: 1px solid var(--accent); min-height: 44px; cursor: pointer; }
.primary { background: var(--accent); color: #fff; }
.secondary { background: transparent; color: inherit; border-color: var(--line) !important; }
.danger { background: #dc2626; color: #fff; border-color: #dc2626 !important; }
button:disabled { opacity: .55; cursor: default; }
.confirm { display: grid; gap: .5rem; padding: .75rem; border: 1px dashed #dc2626; border-radius: .6rem; }
.confirm p { margin: 0; }
.confirm label { font-size: .9rem; }
.card.resolved { border-color: #d97706; }
.notice { background: var(--warn-bg); color: var(--warn); border-radius: .6rem; padding: .7rem .8rem; overflow-wrap: anywhere; }
.notice blockquote { margin: .4rem 0; padding: .3rem .7rem; border-left: 3px solid #d97706; white-space: pre-wrap; }
.notice .kept { margin: .4rem 0 0; font-size: .9rem; }
.entry { background: var(--card); border: 1px solid var(--line); border-radius: .6rem; padding: .6rem .8rem; display: grid; gap: .25rem; list-style: none; }
#history { padding: 0; margin: 0; gap: .5rem; }
.entry-head { display: flex; gap: .5rem; align-items: baseline; font-size: .8rem; color: var(--muted); }
.entry-head time { margin-left: auto; }
.entry p { margin: 0; overflow-wrap: anywhere; }
.entry-question { font-size: .95rem; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
.entry-outcome { font-size: .9rem; white-space: pre-wrap; }
.badge { font-weight: 600; padding: 0 .45rem; border-radius: 1rem; font-size: .75rem; }
.badge.answered, .badge.approved { background: #dcfce7; color: #166534; }
.badge.cancelled, .badge.withdrawn, .badge.denied { background: #fee2e2; color: #991b1b; }
.badge.approval { background: #ede9fe; color: #5b21b6; justify-self: start; }
.card.approval { border-left: 4px solid #7c3aed; }
.summary { margin: 0; color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
pre.input { margin: 0; padding: .6rem .75rem; border: 1px solid var(--line); border-radius: .6rem; background: var(--bg); font: .85rem/1.4 ui-monospace, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16rem; overflow: auto; }
code { font: .95em ui-monospace, Menlo, monospace; }
.approve { background: #16a34a; color: #fff; border-color: #16a34a !important; }
.danger-outline { background: transparent; color: #dc2626; border-color: #dc2626 !important; }
.error { color: #dc2626; font-size: .9rem; margin: 0; }
.empty { text-align: center; color: var(--muted); padding: 2rem 0; }
[hidden] { display: none !important; }
`;
