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

/**
 * A run's spans as a timeline (an SVG bar per span, placed by start and length within the run) and as a
 * table with every figure: the table is the text alternative of the picture.
 */
export function spanTimeline(run: TranscriptRun): Html {
  if (run.spans.length === 0) return html`<p>No spans were recorded for this run.</p>`;
  const origin = run.startedAt.getTime();
  const end = Math.max(run.finishedAt.getTime(), ...run.spans.map((span) => span.startedAt.getTime() + span.durationMs));
  const total = Math.max(1, end - origin);
  const height = run.spans.length * (ROW + GAP) + GAP;
  const bars = run.spans.map((span, index) => {
    const x = Math.max(0, ((span.startedAt.getTime() - origin) / total) * WIDTH);
    const width = Math.max(3, Math.min(WIDTH - x, (span.durationMs / total) * WIDTH));
    const failed = spanError(span) !== undefined;
    return html`<rect class="${kindClass(span.kind)}!${failed ? html` is-error` : EMPTY_HTML}" x="${x.toFixed(1)}" y="${GAP + index * (ROW + GAP)}" width="${width.toFixed(1)}" height="${ROW}"><title>${kindLabel(span.kind)} ${span.name}: ${duration(span.durationMs)}${failed ? ' (failed)' : ''}</title></rect>`;
  });
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" height="${height}" preserveAspectRatio="none" role="img" aria-label="Timeline of ${run.spans.length} spans over ${duration(total)}; the table below lists them">!${bars}</svg>
<ul class="legend" aria-hidden="true"><li><span class="swatch kind-llm"></span>LLM call</li><li><span class="swatch kind-tool"></span>Tool call</li><li><span class="swatch kind-other"></span>Other</li><li><span class="swatch is-error"></span>Failed</li></ul>
<div class="table-scroll"><table>
<caption>Spans of run <code>${run.id}</code></caption>
<thead><tr><th scope="col">#</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col" class="number">Starts at</th><th scope="col" class="number">Duration</th><th scope="col" class="number">Tokens in</th><th scope="col" class="number">Tokens out</th><th scope="col" class="number">Cost</th><th scope="col">Error</th></tr></thead>
<tbody>!${run.spans.map((span, index) => spanRow(span, index, origin))}</tbody>
</table></div>`;
}

function spanRow(span: TranscriptSpan, index: number, origin: number): Html {
  const error = spanError(span);
  const optional = (value: number | null) => (value === null ? '–' : count(value));
  return html`<tr>
<td class="number">${index + 1}</td>
<td>${kindLabel(span.kind)}</td>
<td><code>${span.name}</code></td>
<td class="number">+${duration(Math.max(0, span.startedAt.getTime() - origin))}</td>
<td class="number">${duration(span.durationMs)}</td>
<td class="number">${optional(span.inputTokens)}</td>
<td class="number">${optional(span.outputTokens)}</td>
<td class="number">${span.costUsd === null ? '–' : usd(span.costUsd)}</td>
<td>!${error === undefined ? EMPTY_HTML : html`<span class="badge error">error</span> ${shorten(error, 500)}`}</td>
</tr>`;
}
