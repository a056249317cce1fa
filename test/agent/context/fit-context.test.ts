import { describe, expect, it } from 'vitest';
import { contextBudget, usableTokens } from '../../../src/agent/context/context-budget.js';
import { fitContext, squeezeContext, systemTokensOf, type ContextParts } from '../../../src/agent/context/fit-context.js';
import { CLEARED_TOOL_RESULT, pruneToolResults, softTrimToolResult } from '../../../src/agent/history/prune-tool-results.js';
import { summaryPreamble } from '../../../src/agent/history/summary-preamble.js';
import { estimateTextTokens } from '../../../src/agent/tokens/estimate-tokens.js';
import { assistantText, userText, type ChatMessage } from '../../../src/core/chat-message.js';

function call(id: string, name = 'read_file'): ChatMessage {
  return { role: 'assistant', parts: [{ type: 'tool-call', id, name, arguments: '{}' }] };
}
function result(id: string, content: string): ChatMessage {
  return { role: 'tool', parts: [{ type: 'tool-result', toolCallId: id, name: 'read_file', content, isError: false }] };
}
function pairing(messages: ChatMessage[]): void {
  const calls = new Set(messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []))));
  const results = messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])));
  for (const id of results) expect(calls.has(id)).toBe(true);
  expect(new Set(results)).toEqual(calls);
}
const words = (count: number, word = 'data ') => word.repeat(count);

describe('fitContext', () => {
  const budget = contextBudget(16_384);

  it('counts the system prompt and tool definitions in the fill', () => {
    const parts: ContextParts = { system: 'short', tools: undefined, prior: [], turn: [userText('hi')] };
    const small = fitContext(parts, { budget, historyTurns: 50, factor: 1 });
    const big = fitContext({ ...parts, system: words(3000) }, { budget, historyTurns: 50, factor: 1 });
    expect(big.tokens - small.tokens).toBeGreaterThanOrEqual(estimateTextTokens(words(3000)) - estimateTextTokens('short'));
    expect(small.pressure).toBe('ok');
  });

  it('asks for compaction above 80 % of the usable window, and the provider factor counts', () => {
    const prior = [userText(words(2000)), assistantText(words(2000)), userText(words(2000)), assistantText('ok')];
    const parts: ContextParts = { system: 's', tools: undefined, prior, turn: [userText('and now?')] };
    const plain = fitContext(parts, { budget, historyTurns: 50, factor: 1 });
    expect(plain.pressure).toBe('ok');
    const corrected = fitContext(parts, { budget, historyTurns: 50, factor: 2.5 });
    expect(corrected.tokens).toBeGreaterThan(usableTokens(budget) * 0.8);
    expect(corrected.pressure).toBe('compact');
  });

  it('trims old tool output of this very turn, keeping the results of the last three steps whole', () => {
    const turn: ChatMessage[] = [userText('research this')];
    for (const id of ['a', 'b', 'c', 'd', 'e']) turn.push(call(id), result(id, words(3000, `${id}${id} `)));
    const fitted = fitContext({ system: 's', tools: undefined, prior: [], turn }, { budget: contextBudget(32_000), historyTurns: 50, factor: 1 });
    const contents = fitted.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.content] : [])));
    expect(contents.slice(0, 2).every((content) => /characters trimmed/.test(content))).toBe(true);
    expect(contents.slice(2).every((content) => !/characters trimmed/.test(content))).toBe(true);
    pairing(fitted.messages);
  });
});

describe('squeezeContext (last resort)', () => {
  it('clears older results, drops whole old turns (keeping the summary), and never this turn\u2019s user message', () => {
    const prior = [
      ...summaryPreamble('the user likes tea'),
      userText(words(6000, 'old ')),
      call('o1'),
      result('o1', words(3000, 'x ')),
      assistantText('old answer'),
      userText('recent question'),
      assistantText('recent answer'),
    ];
    const turn = [userText('the question now'), call('n1'), result('n1', words(2000, 'fresh '))];
    const budget = contextBudget(16_384);
    const squeezed = squeezeContext({ system: 's', tools: undefined, prior, turn }, { budget, historyTurns: 50, factor: 1, targetTokens: 4_000 });
    expect(squeezed.tokens).toBeLessThanOrEqual(4_000);
    const texts = squeezed.messages.map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join());
    expect(texts[0]).toContain('the user likes tea');
    expect(texts).toContain('the question now');
    expect(texts.some((text) => text.startsWith('old old'))).toBe(false);
    pairing(squeezed.messages);
  });

  it('trims this turn\u2019s own long output to its head and tail before it drops the conversation, in the form it keeps later (the cached prefix)', () => {
    const prior = [userText('my name is Ada'), call('o1'), result('o1', words(3000, 'x ')), assistantText('noted')];
    const output = `BEGIN ${words(20_000, 'fresh ')} END`;
    const turn = [userText('the question now'), call('n1'), result('n1', output)];
    const squeezed = squeezeContext({ system: 's', tools: undefined, prior, turn }, { budget: contextBudget(16_384), historyTurns: 50, factor: 1, targetTokens: 4_000 });
    expect(squeezed.tokens).toBeLessThanOrEqual(4_000);
    const contents = squeezed.messages.flatMap((message) => message.parts.map((part) => (part.type === 'text' ? part.text : part.type === 'tool-result' ? part.content : '')));
    expect(contents).toContain('my name is Ada');
    // the older result reads exactly as pruning would leave it, so a later request shares this prefix
    expect(contents[2]).toBe(softTrimToolResult(words(3000, 'x ')));
    // and this turn's output already has the form the next turn's request will give it
    expect(contents.at(-1)).toBe(softTrimToolResult(output));
    const nextTurn = squeezeContext(
      { system: 's', tools: undefined, prior: [...prior, ...turn, assistantText('done')], turn: [userText('and now?')] },
      { budget: contextBudget(16_384), historyTurns: 50, factor: 1, targetTokens: 4_000 },
    );
    expect(JSON.stringify(nextTurn.messages.slice(0, squeezed.messages.length))).toBe(JSON.stringify(squeezed.messages));
  });

  it('cuts this turn\u2019s own huge tool result to head and tail when nothing else is left to drop', () => {
    const turn = [userText('q'), call('n1'), result('n1', `BEGIN ${words(20_000)} END`)];
    const squeezed = squeezeContext({ system: 's', tools: undefined, prior: [], turn }, { budget: contextBudget(16_384), historyTurns: 50, factor: 1, targetTokens: 3_000 });
    expect(squeezed.tokens).toBeLessThanOrEqual(3_000);
    const content = squeezed.messages[2]!.parts[0]!;
    expect(content.type === 'tool-result' && content.content).toMatch(/^BEGIN[\s\S]*characters trimmed[\s\S]*END$/);
  });
});

describe('hard clear floor (seed 000 §6)', () => {
  const history = (size: number): ChatMessage[] => [
    userText('q1'),
    call('a'),
    result('a', 'a'.repeat(size)),
    assistantText('1'),
    userText('q2'),
    call('b'),
    result('b', 'b'.repeat(size)),
    assistantText('2'),
    assistantText('3'),
    assistantText('4'),
  ];

  it('does not hard-clear when the prunable results hold less than 50,000 characters, even above 0.5', () => {
    const pruned = pruneToolResults(history(20_000), { contextWindow: 200_000, reservedTokens: 110_000 });
    const contents = pruned.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.content] : [])));
    expect(contents.every((content) => content !== CLEARED_TOOL_RESULT)).toBe(true);
  });

  it('hard-clears once they hold 50,000 characters or more', () => {
    const pruned = pruneToolResults(history(30_000), { contextWindow: 200_000, reservedTokens: 110_000 });
    const contents = pruned.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.content] : [])));
    expect(contents[0]).toBe(CLEARED_TOOL_RESULT);
  });
});

describe('the system prompt estimate, line by line', () => {
  it('equals the estimate of the whole prompt, for prompts that share most lines', () => {
    const lines = ['You are a helpful assistant.', '## Tools', '- read_file: Read a text file.', '', '数据和文本 mixed 42 times', '  indented 3.5 %', '## Chat', 'This is a private conversation with User 1000000.', '😀 emoji line', 'x'];
    let seed = 11;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    for (let sample = 0; sample < 300; sample++) {
      const count = 1 + (next() % 14);
      const prompt = Array.from({ length: count }, () => lines[next() % lines.length]).join('\n') + (next() % 2 ? '\n' : '');
      expect(systemTokensOf(prompt), JSON.stringify(prompt)).toBe(estimateTextTokens(prompt));
      // asked again (every line from the cache now), the same
      expect(systemTokensOf(prompt)).toBe(estimateTextTokens(prompt));
    }
  });
});
