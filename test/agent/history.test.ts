import { describe, expect, it } from 'vitest';
import {
  CLEARED_TOOL_RESULT,
  limitHistoryTurns,
  MISSING_TOOL_RESULT,
  pruneToolResults,
  repairToolPairing,
  summaryPreamble,
} from '../../src/agent/index.js';
import { assistantText, textOf, userText, type ChatMessage } from '../../src/core/chat-message.js';

const call = (...calls: Array<[id: string, name?: string]>): ChatMessage => ({
  role: 'assistant',
  parts: calls.map(([id, name = 'read_file']) => ({ type: 'tool-call' as const, id, name, arguments: '{}' })),
});
const result = (id: string, content = `result ${id}`, name = 'read_file'): ChatMessage => ({
  role: 'tool',
  parts: [{ type: 'tool-result', toolCallId: id, name, content, isError: false }],
});

/** A compact picture of a history: u:text, a:text, a[ids], t:id=content. */
function shape(messages: ChatMessage[]): string[] {
  return messages.map((message) => {
    const calls = message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []));
    const results = message.parts.flatMap((part) => (part.type === 'tool-result' ? [`${part.toolCallId}=${part.content}`] : []));
    if (message.role === 'tool') return `t:${results.join(',')}`;
    if (calls.length > 0) return `a[${calls.join(',')}]`;
    return `${message.role[0]}:${textOf(message)}`;
  });
}

describe('history pipeline — stage 1: limit turns', () => {
  const history = [userText('1'), assistantText('r1'), userText('2'), call(['c2']), result('c2'), assistantText('r2'), userText('3'), assistantText('r3')];

  it.each([
    [1, ['u:3', 'a:r3']],
    [2, ['u:2', 'a[c2]', 't:c2=result c2', 'a:r2', 'u:3', 'a:r3']],
    [3, shape(history)],
    [50, shape(history)],
  ])('keeps the last %i user turns', (turns, expected) => {
    expect(shape(limitHistoryTurns(history, turns))).toEqual(expected);
  });

  it('keeps a leading summary preamble in front', () => {
    const withSummary = [...summaryPreamble('we talked about cats'), ...history];
    expect(shape(limitHistoryTurns(withSummary, 1))).toEqual([
      'u:[Previous conversation summary]\nwe talked about cats',
      'a:I understand the context of our previous conversation and will continue from there.',
      'u:3',
      'a:r3',
    ]);
  });
});

describe('history pipeline — stage 2: prune tool results', () => {
  const big = (id: string, size: number) => result(id, `${id}:`.padEnd(size, 'x'));
  // One old turn with two large results, then three protected assistant messages.
  const history = (size: number): ChatMessage[] => [
    userText('first question'),
    call(['old1'], ['old2']),
    big('old1', size),
    big('old2', size),
    assistantText('answer one'),
    userText('second'),
    call(['new1']),
    big('new1', size),
    assistantText('answer two'),
  ];
  const contents = (messages: ChatMessage[]) =>
    messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.content] : [])));

  it('below the soft ratio nothing changes', () => {
    const messages = history(5000);
    expect(pruneToolResults(messages, { contextWindow: 100_000 })).toBe(messages);
  });

  it('at ≥ 0.3 long results keep head 1500 + tail 1500, except protected ones', () => {
    // 3 × 5000 chars ≈ 3750 tokens; window 10,000 → ratio ≈ 0.38.
    const pruned = contents(pruneToolResults(history(5000), { contextWindow: 10_000 }));
    expect(pruned[0]).toMatch(/^old1:x{1495}\n\n\[\.\.\. 2000 characters trimmed \.\.\.\]\n\nx{1500}$/);
    expect(pruned[1]).toMatch(/\[\.\.\. 2000 characters trimmed \.\.\.\]/);
    expect(pruned[2]).toHaveLength(5000);
  });

  it('results of 4000 characters or less are not soft-trimmed', () => {
    const pruned = contents(pruneToolResults(history(4000), { contextWindow: 10_000 }));
    expect(pruned.map((content) => content.length)).toEqual([4000, 4000, 4000]);
  });

  it('at ≥ 0.5 old results are cleared oldest first until the fill drops below 0.5', () => {
    // After soft trim: 2 × ~3035 + 20000 chars ≈ 6550 tokens; window 12,000 → 0.55; clearing old1 brings it under 0.5.
    const pruned = contents(pruneToolResults(history(20_000), { contextWindow: 12_000 }));
    expect(pruned[0]).toBe(CLEARED_TOOL_RESULT);
    expect(pruned[1]).toMatch(/characters trimmed/);
    expect(pruned[2]).toHaveLength(20_000);
  });

  it('protected messages survive even when the fill stays above 0.5', () => {
    const pruned = pruneToolResults(history(20_000), { contextWindow: 5_000 });
    expect(contents(pruned)).toEqual([CLEARED_TOOL_RESULT, CLEARED_TOOL_RESULT, expect.stringMatching(/^new1:x+$/)]);
    expect(textOf(pruned[0]!)).toBe('first question');
  });

  it('does not mutate its input', () => {
    const messages = history(20_000);
    const before = JSON.stringify(messages);
    pruneToolResults(messages, { contextWindow: 5_000 });
    expect(JSON.stringify(messages)).toBe(before);
  });
});

describe('history pipeline — stage 3: repair tool pairing', () => {
  it.each([
    ['a well-formed history is unchanged', [userText('q'), call(['a'], ['b']), result('a'), result('b'), assistantText('r')], ['u:q', 'a[a,b]', 't:a=result a', 't:b=result b', 'a:r']],
    ['orphan results at the start are dropped', [result('gone'), userText('q'), assistantText('r')], ['u:q', 'a:r']],
    ['a result after a user message (its call is elsewhere) is dropped', [userText('q'), result('x'), assistantText('r')], ['u:q', 'a:r']],
    ['a result whose id matches no call is dropped', [userText('q'), call(['a']), result('a'), result('zzz'), assistantText('r')], ['u:q', 'a[a]', 't:a=result a', 'a:r']],
    ['a missing result is synthesized', [userText('q'), call(['a'], ['b']), result('b'), userText('next')], ['u:q', 'a[a,b]', `t:a=${MISSING_TOOL_RESULT}`, 't:b=result b', 'u:next']],
    ['a trailing call without results gets one', [userText('q'), call(['a'])], ['u:q', 'a[a]', `t:a=${MISSING_TOOL_RESULT}`]],
    ['results are put in call order', [userText('q'), call(['a'], ['b']), result('b'), result('a')], ['u:q', 'a[a,b]', 't:a=result a', 't:b=result b']],
    [
      'a duplicate id across turns is rewritten on the later call and its result',
      [userText('q'), call(['dup']), result('dup', 'first'), userText('q2'), call(['dup']), result('dup', 'second')],
      ['u:q', 'a[dup]', 't:dup=first', 'u:q2', 'a[dup_2]', 't:dup_2=second'],
    ],
    [
      'a duplicate id inside one message pairs results in order',
      [userText('q'), call(['x'], ['x']), result('x', 'one'), result('x', 'two')],
      ['u:q', 'a[x,x_2]', 't:x=one', 't:x_2=two'],
    ],
    [
      'a second result for the same call is dropped',
      [userText('q'), call(['a']), result('a', 'one'), result('a', 'again')],
      ['u:q', 'a[a]', 't:a=one'],
    ],
  ])('%s', (_name, input, expected) => {
    const repaired = repairToolPairing(input);
    expect(shape(repaired)).toEqual(expected);
    // Never a tool result whose call is absent.
    const calls = new Set(repaired.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []))));
    for (const message of repaired) {
      for (const part of message.parts) if (part.type === 'tool-result') expect(calls.has(part.toolCallId)).toBe(true);
    }
  });

  it('a synthesized result carries the tool name and is an error', () => {
    const [, , missing] = repairToolPairing([userText('q'), call(['a', 'bash'])]);
    expect(missing?.parts[0]).toEqual({ type: 'tool-result', toolCallId: 'a', name: 'bash', content: MISSING_TOOL_RESULT, isError: true });
  });
});
