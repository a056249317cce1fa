import { PROMPT_SPLIT_PARTS, type PromptSplit } from '../../../core/trace-span.js';
import type { SessionPromptSplit, TranscriptRun } from '../../../store/index.js';
import { count } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';

const WIDTH = 1000;
const HEIGHT = 16;

const LABELS: Record<(typeof PROMPT_SPLIT_PARTS)[number], string> = {
  system: 'System prompt',
  tools: 'Tool schemas',
  memories: 'Memories',
  summary: 'Summary',
  history: 'History',
  message: 'New message',
  turn: 'This turn so far',
};

/**
 * The estimator's split scaled to what the provider counted (its input tokens, cache included), so the parts add up
 * to the real figure; without a provider count, the estimates as they are.
 */
function scaledParts(split: PromptSplit, reported: number): Array<{ part: (typeof PROMPT_SPLIT_PARTS)[number]; tokens: number }> {
  const estimated = PROMPT_SPLIT_PARTS.reduce((sum, part) => sum + split[part], 0);
  const scale = reported > 0 && estimated > 0 ? reported / estimated : 1;
  return PROMPT_SPLIT_PARTS.map((part) => ({ part, tokens: Math.round(split[part] * scale) }));
}

/** One stacked bar (server-rendered SVG, no style attributes) with its numbers as text beside it. */
export function promptSplitBar(split: PromptSplit, reported: number, cacheRead: number, label: string): Html {
  const parts = scaledParts(split, reported);
  const total = Math.max(1, parts.reduce((sum, { tokens }) => sum + tokens, 0));
  let x = 0;
  const rects = parts
    .filter(({ tokens }) => tokens > 0)
    .map(({ part, tokens }) => {
      const width = (tokens / total) * WIDTH;
      const rect = html`<rect class="split-${part}" x="${x.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="${HEIGHT}"><title>${LABELS[part]}: ${count(tokens)} tokens</title></rect>`;
      x += width;
      return rect;
    });
  const cached = reported > 0 && cacheRead > 0 ? (cacheRead / reported) * WIDTH : 0;
  const cacheMark = cached > 0 ? html`<rect class="split-cached" x="0" y="${HEIGHT}" width="${cached.toFixed(1)}" height="4"><title>Read from the provider's cache: ${count(cacheRead)} tokens</title></rect>` : EMPTY_HTML;
  const text = parts.filter(({ tokens }) => tokens > 0).map(({ part, tokens }) => `${LABELS[part]} ${count(tokens)}`).join(' · ');
  return html`<figure class="prompt-split"><svg class="split-bar" viewBox="0 0 ${WIDTH} ${HEIGHT + 4}" preserveAspectRatio="none" role="img" aria-label="${label}: ${text}">!${rects}!${cacheMark}</svg>
<figcaption>${label}: ${text}${reported > 0 ? ` (of ${count(reported)} input tokens the provider counted${cacheRead > 0 ? `, ${count(cacheRead)} read from its cache` : ''})` : ' (estimated)'}</figcaption></figure>`;
}

export function promptSplitLegend(): Html {
  return html`<ul class="legend" aria-hidden="true">!${PROMPT_SPLIT_PARTS.map((part) => html`<li><span class="swatch split-${part}"></span>${LABELS[part]}</li>`)}<li><span class="swatch split-cached"></span>Read from cache</li></ul>`;
}

/** The session's split over all its calls that recorded one. */
export function sessionPromptSplitView(session: SessionPromptSplit): Html {
  if (session.calls === 0) return EMPTY_HTML;
  return html`<section class="prompt-split-session" aria-labelledby="prompt-split-heading"><h2 id="prompt-split-heading">Where the prompt went</h2>
!${promptSplitBar(session.split, session.reportedTokens, session.cacheReadTokens, `${count(session.calls)} model calls of this session`)}!${promptSplitLegend()}</section>`;
}

/** Each model call of a run that recorded its split, one bar each. */
export function runPromptSplits(run: TranscriptRun): Html {
  const calls = run.spans.filter((span) => span.kind === 'llm' && span.promptSplit);
  if (calls.length === 0) return EMPTY_HTML;
  return html`<div class="prompt-split-calls">!${calls.map((span, index) =>
    promptSplitBar(span.promptSplit!, (span.inputTokens ?? 0) + (span.cacheReadTokens ?? 0) + (span.cacheWriteTokens ?? 0), span.cacheReadTokens ?? 0, `Call ${index + 1} (${span.name})`),
  )}</div>`;
}
