import { ADMIN_PREFIX } from '../../admin-scope.js';
import type { MessagePart } from '../../../core/chat-message.js';
import type { ConsoleSession, SessionPromptSplit, TranscriptMessage, TranscriptRun } from '../../../store/index.js';
import { count, duration, pathWithQuery, shorten, timeOf, usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { personCell } from '../names.js';
import { sessionPath } from './sessions-page.js';
import { spanTimeline } from './span-timeline.js';
import { promptSplitLegend, runPromptSplits, sessionPromptSplitView } from './prompt-split-bar.js';

const TOOL_TEXT_MAX = 4000;

export interface TranscriptPageInput {
  session: ConsoleSession;
  messages: TranscriptMessage[];
  runs: TranscriptRun[];
  limit: number;
  cursor: string | undefined;
  nextCursor: string | undefined;
  /** Where the session's prompts went (absent: not shown). */
  promptSplit?: SessionPromptSplit | undefined;
}

/** Consecutive messages of one run form a turn; messages without a run stand alone. */
interface Turn {
  run: TranscriptRun | undefined;
  runId: string | null;
  messages: TranscriptMessage[];
}

export function transcriptPage(input: TranscriptPageInput): Html {
  const { session } = input;
  const runs = new Map(input.runs.map((run) => [run.id, run]));
  const turns: Turn[] = [];
  for (const message of input.messages) {
    const last = turns.at(-1);
    if (last && last.runId !== null && last.runId === message.runId) last.messages.push(message);
    else turns.push({ runId: message.runId, run: message.runId ? runs.get(message.runId) : undefined, messages: [message] });
  }
  const facts = html`<dl class="facts">
<dt>Key</dt><dd><code>${session.key}</code></dd>
<dt>Channel</dt><dd>${session.channel} (account ${session.accountId})</dd>
<dt>Agent</dt><dd>${session.agentId}</dd>
<dt>Model</dt><dd>!${modelFact(session)}</dd>
<dt>Chat</dt><dd>${session.chatType === 'dm' ? 'direct messages' : 'group'} <code>${session.chatId}</code></dd>
!${session.userId ? html`<dt>User</dt><dd>!${personCell({ userId: session.userId, name: session.userName, username: session.username })}</dd>` : EMPTY_HTML}
<dt>Last activity</dt><dd>!${timeOf(session.lastActivityAt)}</dd>
<dt>Turns</dt><dd>${count(session.turns)}</dd>
<dt>Tokens</dt><dd>${count(session.inputTokens)} in, ${count(session.outputTokens)} out</dd>
<dt>Cost</dt><dd>${usd(session.costUsd)}</dd>
</dl>
<p><a href="${ADMIN_PREFIX}/sessions">All sessions</a> · <a href="${ADMIN_PREFIX}/api/sessions/${encodeURIComponent(session.key)}/transcript">This transcript as JSON</a></p>`;
  const base = sessionPath(session.key);
  const limit = input.limit === 200 ? undefined : input.limit;
  const pager = html`<nav class="pager" aria-label="Pages of the transcript">!${input.cursor ? html`<a href="${pathWithQuery(base, { limit })}">First messages</a>` : EMPTY_HTML}!${
    input.nextCursor ? html`<a rel="next" href="${pathWithQuery(base, { cursor: input.nextCursor, limit })}">Later messages</a>` : EMPTY_HTML
  }</nav>`;
  const body = input.messages.length === 0 ? html`<p>No messages stored in this session${input.cursor ? ' after this point' : ''}.</p>` : html`!${turns.map(turnSection)}`;
  const split = input.promptSplit ? sessionPromptSplitView(input.promptSplit) : EMPTY_HTML;
  return html`!${facts}!${split}<h2 class="visually-hidden">Transcript</h2>!${body}!${pager}`;
}

function turnSection(turn: Turn, index: number): Html {
  const { run } = turn;
  const headingId = `turn-${index}`;
  const heading = run
    ? html`<h2 id="${headingId}">Turn at !${timeOf(run.startedAt)} <span class="badge ${run.status}">${run.status}</span>!${run.silent ? html` <span class="badge">not sent (NO_REPLY)</span>` : EMPTY_HTML}</h2>
<p class="message-head">Run <code>${run.id}</code> · ${run.provider}:${run.model} · ${duration(run.durationMs)} · ${count(run.inputTokens)} tokens in, ${count(run.outputTokens)} out · ${usd(run.costUsd)}</p>
!${run.error ? html`<p class="notice problem">${shorten(run.error, 2000)}</p>` : EMPTY_HTML}`
    : html`<h2 id="${headingId}">${turn.runId ? html`Run <code>${turn.runId}</code>` : 'Messages without a run'}</h2>`;
  const spans = run
    ? html`<details class="spans"><summary>Spans of this run: ${spanSummary(run)}</summary>!${spanTimeline(run)}!${promptSplitsOf(run)}</details>`
    : EMPTY_HTML;
  return html`<section class="turn" aria-labelledby="${headingId}">!${heading}<ol class="messages">!${turn.messages.map(messageItem)}</ol>!${spans}</section>`;
}

function promptSplitsOf(run: TranscriptRun): Html {
  const bars = runPromptSplits(run);
  return bars === EMPTY_HTML ? EMPTY_HTML : html`<h3>Where each call's prompt went</h3>!${bars}!${promptSplitLegend()}`;
}

function spanSummary(run: TranscriptRun): string {
  if (run.spans.length === 0) return 'none';
  const byKind = new Map<string, number>();
  for (const span of run.spans) byKind.set(span.kind, (byKind.get(span.kind) ?? 0) + 1);
  const names: Record<string, [string, string]> = { llm: ['LLM call', 'LLM calls'], tool: ['tool call', 'tool calls'] };
  return [...byKind].map(([kind, n]) => `${n} ${(names[kind] ?? [kind, kind])[n === 1 ? 0 : 1]}`).join(', ');
}

function messageItem(message: TranscriptMessage): Html {
  return html`<li class="role-${message.role}">
<div class="message-head"><span class="role">${message.role}</span> !${timeOf(message.createdAt)} <span>#${message.seq}</span>!${
    message.runId ? html` <span>run <code>${message.runId}</code></span>` : EMPTY_HTML
  }</div>
!${message.parts.map(partItem)}
</li>`;
}

/** Every part as text: what a user or model wrote is never interpreted as markup or Markdown. */
function partItem(part: MessagePart): Html {
  switch (part.type) {
    case 'text':
      return html`<div class="text">${part.text}</div>`;
    case 'image':
      return html`<div class="text">[image, ${part.mimeType}]</div>`;
    case 'reasoning':
      return html`<details><summary>Reasoning</summary><div class="text">${part.redacted ? '(redacted by the provider)' : part.text}</div></details>`;
    case 'tool-call':
      return html`<div class="tool-call">Calls <code>${part.name}</code> with <code>${shorten(part.arguments, TOOL_TEXT_MAX)}</code></div>`;
    case 'tool-result':
      return html`<div class="tool-call">!${part.isError ? html`<span class="badge error">error</span> ` : EMPTY_HTML}Result of <code>${part.name}</code>:</div><div class="text mono">${shorten(part.content, TOOL_TEXT_MAX)}</div>`;
  }
}

/** The chat's `/model` choice (kept only for agents with `modelChoice: chat`) before the session's own. */
function modelFact(session: ConsoleSession): Html {
  if (session.chatModel) return html`<code>${session.chatModel}</code> (chosen for the whole chat with /model)`;
  return session.model ? html`<code>${session.model}</code> (chosen with /model)` : html`the agent's own`;
}
