import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import type { WorkingIndicator } from '../../src/core/channel.js';
import { APPROVAL_LINE, PROGRESS_LINE_DELAY_MS, progressLine } from '../../src/turn/progress-line.js';

/** What each side was asked to show, in order; `indicatorShows` undefined: an indicator without `status`. */
function recorders(indicatorShows: boolean | undefined) {
  const indicator: Array<string | undefined> = [];
  const draft: Array<string | undefined> = [];
  const working: WorkingIndicator = {
    stop: async () => undefined,
    ...(indicatorShows === undefined
      ? {}
      : {
          status(label: string | undefined) {
            indicator.push(label);
            return indicatorShows;
          },
        }),
  };
  return { indicator, draft, working, sink: { status: (label: string | undefined) => void draft.push(label) } };
}

const start = (toolCallId: string, label?: string): AgentEvent => ({ type: 'tool-call-start', toolCallId, name: 'tool', args: {}, ...(label ? { label } : {}) });
const end = (toolCallId: string): AgentEvent => ({ type: 'tool-call-end', toolCallId, name: 'tool', isError: false, output: 'ok' });
const text = (chunk: string): AgentEvent => ({ type: 'text-delta', text: chunk });
const usage = { inputTokens: 0, outputTokens: 0 };
const runEnd: AgentEvent = { type: 'run-end', text: 'x', reply: { text: 'x', silent: false }, messages: [], usage, costUsd: 0, iterations: 1, spans: [] };
const wait = (ms: number) => vi.advanceTimersByTime(ms);

describe('progress line', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a turn without tools asks neither side for anything and sets no timer', () => {
    const { indicator, draft, working, sink } = recorders(true);
    const line = progressLine(working, sink);
    for (const event of [{ type: 'run-start', runId: 'r' }, text('Hello'), text(' there'), runEnd] as AgentEvent[]) line.onEvent(event);
    expect(vi.getTimerCount()).toBe(0);
    wait(PROGRESS_LINE_DELAY_MS * 2);
    expect(indicator).toEqual([]);
    expect(draft).toEqual([]);
  });

  it('quick tools show no line: the answer comes before the delay', () => {
    const { indicator, draft, working, sink } = recorders(false);
    const line = progressLine(working, sink);
    for (const event of [start('a', 'Searching the web…'), end('a')]) line.onEvent(event);
    wait(PROGRESS_LINE_DELAY_MS - 1);
    line.onEvent(text('Found'));
    wait(PROGRESS_LINE_DELAY_MS * 2);
    expect(indicator).toEqual([]);
    expect(draft).toEqual([]);
  });

  it('goes to the draft when the indicator cannot show it: shown after the delay, replaced per step, cleared by a step without a label', () => {
    const { indicator, draft, working, sink } = recorders(undefined);
    const line = progressLine(working, sink);
    line.onEvent(start('a', 'Searching the web…'));
    wait(PROGRESS_LINE_DELAY_MS);
    for (const event of [end('a'), start('b', 'Running `ls`…'), end('b'), start('c'), end('c')]) line.onEvent(event);
    // no line up: the next one waits for the delay again
    line.onEvent(start('d', 'Reading…'));
    expect(draft).toEqual(['Searching the web…', 'Running `ls`…', undefined]);
    wait(PROGRESS_LINE_DELAY_MS);
    line.onEvent(end('d'));
    line.onEvent(text('Answer'));
    expect(indicator).toEqual([]);
    // the draft drops its line itself with the answer's text (see live-draft.ts)
    expect(draft).toEqual(['Searching the web…', 'Running `ls`…', undefined, 'Reading…']);
  });

  it('parallel calls of one step: the first with a label speaks for it', () => {
    const { draft, working, sink } = recorders(false);
    const line = progressLine(working, sink);
    for (const event of [start('a'), start('b', 'Searching the web…'), start('c', 'Reading…')]) line.onEvent(event);
    wait(PROGRESS_LINE_DELAY_MS);
    for (const event of [end('a'), end('b'), end('c')]) line.onEvent(event);
    expect(draft).toEqual(['Searching the web…']);
  });

  it('goes to the indicator when it shows it (Slack assistant status), back to plain when the answer is written', () => {
    const { indicator, draft, working, sink } = recorders(true);
    const line = progressLine(working, sink);
    line.onEvent(start('a', 'Searching the web…'));
    wait(PROGRESS_LINE_DELAY_MS);
    for (const event of [end('a'), start('b', 'Searching the web…'), end('b'), text('Ans'), text('wer')]) line.onEvent(event);
    expect(indicator).toEqual(['Searching the web…', undefined]);
    expect(draft).toEqual([]);
  });

  it('nothing after the run ended or the turn stopped', () => {
    const { indicator, draft, working, sink } = recorders(true);
    const ended = progressLine(working, sink);
    ended.onEvent(start('a', 'Searching the web…'));
    ended.onEvent(runEnd);
    const stopped = progressLine(working, sink);
    stopped.onEvent(start('a', 'Searching the web…'));
    stopped.stop();
    wait(PROGRESS_LINE_DELAY_MS * 2);
    expect(indicator).toEqual([]);
    expect(draft).toEqual([]);
  });

  it('a turn that parks shows "Waiting for your approval" at once: on the indicator that can hold it, else left in the draft', async () => {
    const park: AgentEvent = { type: 'run-park', untilMs: 0, toolName: 'write_file', messages: [], usage, costUsd: 0, iterations: 1, spans: [] };
    const parked: string[] = [];
    const draftSink = { status: () => undefined, park: async (line: string) => void parked.push(`draft:${line}`) };
    const holding: WorkingIndicator = { stop: async () => undefined, park: async (line) => (parked.push(`indicator:${line}`), true) };
    const onIndicator = progressLine(holding, draftSink);
    onIndicator.onEvent(park);
    await onIndicator.park();
    const plain: WorkingIndicator = { stop: async () => undefined, park: async () => false };
    const onDraft = progressLine(plain, draftSink);
    onDraft.onEvent(start('a', 'Searching the web…'));
    onDraft.onEvent(park);
    await onDraft.park();
    expect(parked).toEqual([`indicator:${APPROVAL_LINE}`, `draft:${APPROVAL_LINE}`]);
    wait(PROGRESS_LINE_DELAY_MS * 2);
    expect(parked).toHaveLength(2);
  });

  it('a preview an earlier run left (the approval line) is replaced at once by the first step\'s line', () => {
    const { draft, working, sink } = recorders(undefined);
    const line = progressLine(working, sink, { lineUp: true });
    line.onEvent(start('a', 'Writing `notes.txt`…'));
    expect(draft).toEqual(['Writing `notes.txt`…']);
  });
});
