import type { TranscriptRun, TranscriptSpan } from '../../../store/index.js';
import { count, duration, shorten, usd } from '../format.js';
import { EMPTY_HTML, html, type Html } from '../html.js';
import { spanError } from './contract-shapes.js';

const WIDTH = 1000;
const ROW = 18;
const GAP = 6;

/** Spans of any kind are drawn the same way; only LLM and tool calls have their own colour and label. */
function kindClass(kind: string): string {
  return kind === 'llm' || kind === 'tool' ? `kind-${kind}` : 'kind-other';
}

export function kindLabel(kind: string): string {
  return kind === 'llm' ? 'LLM call' : kind === 'tool' ? 'Tool call' : kind === 'approval' ? 'Approval' : kind;
}

/** A span in display order, with how deep it sits under `spawn_agent` calls (0: the run's own). */
export interface PlacedSpan {
  span: TranscriptSpan;
  depth: number;
}

/**
 * The spans in display order: each `spawn_agent` call followed by the spans of its sub-agent (recorded before it,
 * since the call ends after them), indented one level deeper; everything else in run order.
 */
export function nestSpans(spans: TranscriptSpan[]): PlacedSpan[] {
  const calls = new Set(spans.flatMap((span) => (span.kind === 'tool' && span.toolCallId ? [span.toolCallId] : [])));
  const children = new Map<string, TranscriptSpan[]>();
  const roots: TranscriptSpan[] = [];
  for (const span of spans) {
    const parent = span.parentToolCallId;
    if (parent && calls.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span]);
    else roots.push(span);
  }
  const placed: PlacedSpan[] = [];
  const seen = new Set<TranscriptSpan>();
  const visit = (span: TranscriptSpan, depth: number): void => {
    if (seen.has(span)) return;
    seen.add(span);
    placed.push({ span, depth });
    if (span.kind === 'tool' && span.toolCallId) for (const child of children.get(span.toolCallId) ?? []) visit(child, depth + 1);
  };
  for (const span of roots) visit(span, 0);
  return placed;
}

/**
 * A run's spans as a timeline (an SVG bar per span, placed by start and length within the run) and as a
 * table with every figure: the table is the text alternative of the picture. A sub-agent's spans follow the
 * `spawn_agent` call they ran for, indented, with a thinner bar.
 */
export function spanTimeline(run: TranscriptRun): Html {
  if (run.spans.length === 0) return html`<p>No spans were recorded for this run.</p>`;
  const origin = run.startedAt.getTime();
  const end = Math.max(run.finishedAt.getTime(), ...run.spans.map((span) => span.startedAt.getTime() + span.durationMs));
  const total = Math.max(1, end - origin);
  const placed = nestSpans(run.spans);
  const height = placed.length * (ROW + GAP) + GAP;
  const bars = placed.map(({ span, depth }, index) => {
    const x = Math.max(0, ((span.startedAt.getTime() - origin) / total) * WIDTH);
    const width = Math.max(3, Math.min(WIDTH - x, (span.durationMs / total) * WIDTH));
    const failed = spanError(span) !== undefined;
    const inset = Math.min(depth * 3, ROW / 3);
    const nested = depth > 0 ? html` nested` : EMPTY_HTML;
    const owner = depth > 0 ? ' (sub-agent)' : '';
    return html`<rect class="${kindClass(span.kind)}!${failed ? html` is-error` : EMPTY_HTML}!${nested}" x="${x.toFixed(1)}" y="${GAP + index * (ROW + GAP) + inset}" width="${width.toFixed(1)}" height="${ROW - 2 * inset}"><title>${kindLabel(span.kind)} ${span.name}${owner}: ${duration(span.durationMs)}${failed ? ' (failed)' : ''}</title></rect>`;
  });
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" height="${height}" preserveAspectRatio="none" role="img" aria-label="Timeline of ${run.spans.length} spans over ${duration(total)}; the table below lists them">!${bars}</svg>
<ul class="legend" aria-hidden="true"><li><span class="swatch kind-llm"></span>LLM call</li><li><span class="swatch kind-tool"></span>Tool call</li><li><span class="swatch kind-other"></span>Other</li><li><span class="swatch is-error"></span>Failed</li></ul>
<div class="table-scroll"><table>
<caption>Spans of run <code>${run.id}</code></caption>
<thead><tr><th scope="col">#</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col" class="number">Starts at</th><th scope="col" class="number">Duration</th><th scope="col" class="number">Tokens in</th><th scope="col" class="number">Tokens out</th><th scope="col" class="number">Cost</th><th scope="col">Error</th></tr></thead>
<tbody>!${placed.map((entry, index) => spanRow(entry, index, origin))}</tbody>
</table></div>`;
}

function spanRow({ span, depth }: PlacedSpan, index: number, origin: number): Html {
  const error = spanError(span);
  const optional = (value: number | null) => (value === null ? '–' : count(value));
  const nesting = depth > 0 ? html`<span class="nesting depth-${Math.min(depth, 3)}">↳ </span>` : EMPTY_HTML;
  const owner = depth > 0 ? html` <span class="badge">sub-agent</span>` : EMPTY_HTML;
  return html`<tr!${depth > 0 ? html` class="nested-span"` : EMPTY_HTML}>
<td class="number">${index + 1}</td>
<td>${kindLabel(span.kind)}</td>
<td>!${nesting}<code>${span.name}</code>!${owner}</td>
<td class="number">+${duration(Math.max(0, span.startedAt.getTime() - origin))}</td>
<td class="number">${duration(span.durationMs)}</td>
<td class="number">${optional(span.inputTokens)}</td>
<td class="number">${optional(span.outputTokens)}</td>
<td class="number">${span.costUsd === null ? '–' : usd(span.costUsd)}</td>
<td>!${error === undefined ? EMPTY_HTML : html`<span class="badge error">error</span> ${shorten(error, 500)}`}</td>
</tr>`;
}
