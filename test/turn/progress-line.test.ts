import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import type { WorkingIndicator } from '../../src/core/channel.js';
import { progressLine } from '../../src/turn/progress-line.js';

/** What each side was asked to show, in order. */
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

describe('progress line', () => {
  it('a turn without tools asks neither side for anything', () => {
    const { indicator, draft, working, sink } = recorders(true);
    const onEvent = progressLine(working, sink);
    for (const event of [{ type: 'run-start', runId: 'r' }, text('Hello'), text(' there')] as AgentEvent[]) onEvent(event);
    expect(indicator).toEqual([]);
    expect(draft).toEqual([]);
  });

  it('goes to the draft when the indicator cannot show it: set per step, cleared by the next step without a label', () => {
    const { indicator, draft, working, sink } = recorders(undefined);
    const onEvent = progressLine(working, sink);
    for (const event of [start('a', 'Searching the web…'), end('a'), start('b', 'Running `ls`…'), end('b'), start('c'), end('c'), start('d', 'Reading…'), end('d'), text('Answer')]) onEvent(event);
    expect(indicator).toEqual([]);
    // the draft drops its line itself with the answer's text (see live-draft.ts)
    expect(draft).toEqual(['Searching the web…', 'Running `ls`…', undefined, 'Reading…']);
  });

  it('parallel calls of one step: the first with a label speaks for it', () => {
    const { draft, working, sink } = recorders(false);
    const onEvent = progressLine(working, sink);
    for (const event of [start('a'), start('b', 'Searching the web…'), start('c', 'Reading…'), end('a'), end('b'), end('c')]) onEvent(event);
    expect(draft).toEqual(['Searching the web…']);
  });

  it('goes to the indicator when it shows it (Slack assistant status), back to plain when the answer is written', () => {
    const { indicator, draft, working, sink } = recorders(true);
    const onEvent = progressLine(working, sink);
    for (const event of [start('a', 'Searching the web…'), end('a'), start('b', 'Searching the web…'), end('b'), text('Ans'), text('wer')]) onEvent(event);
    expect(indicator).toEqual(['Searching the web…', undefined]);
    expect(draft).toEqual([]);
  });

  it('without a draft and an indicator that cannot show it, nothing is shown', () => {
    const { indicator, working } = recorders(false);
    const onEvent = progressLine(working, undefined);
    for (const event of [start('a', 'Searching the web…'), end('a'), text('x')]) onEvent(event);
    expect(indicator).toEqual(['Searching the web…']);
  });
});
