import { describe, expect, it } from 'vitest';
import { assistantText, userText, type ChatMessage } from '../../../src/core/chat-message.js';
import { contextBudget, fitContext, promptSplitOf, promptSplitTotal } from '../../../src/agent/context/index.js';
import { summaryPreamble } from '../../../src/agent/history/summary-preamble.js';
import type { ToolSpec } from '../../../src/llm/chat-model.js';

const MEMORY = '## Memory\n- [m1] The user drinks green tea every morning';
const SYSTEM = `You are a helpful assistant.\nAnswer briefly.\n\n${MEMORY}`;
const TOOLS: ToolSpec[] = [{ name: 'read_file', description: 'Reads a file of the workspace', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

describe('promptSplitOf', () => {
  it('splits a request into system prompt, tool schemas, memories, summary, history, the new message and the turn so far, adding up to the fitting\u2019s raw estimate', () => {
    const summary = summaryPreamble('The user plans a trip to Kyoto in April.');
    const history = [userText('Which temples should I see?'), assistantText('Kiyomizu-dera and Fushimi Inari are good first choices.')];
    const message = userText('And which tea should I try there?');
    const turn: ChatMessage[] = [
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path":"tea.txt"}' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', name: 'read_file', content: 'Uji matcha, gyokuro, hojicha.', isError: false }] },
    ];
    const messages = [...summary, ...history, message, ...turn];
    const split = promptSplitOf({ system: SYSTEM, tools: TOOLS, messages }, { memory: MEMORY, newMessages: new Set([message]) });
    expect(split.memories).toBeGreaterThan(5);
    expect(split.system).toBeGreaterThan(5);
    expect(split.tools).toBeGreaterThan(10);
    expect(split.summary).toBeGreaterThan(5);
    expect(split.history).toBeGreaterThan(10);
    expect(split.message).toBeGreaterThan(5);
    expect(split.turn).toBeGreaterThan(10);
    const fitted = fitContext({ system: SYSTEM, tools: TOOLS, prior: [...summary, ...history], turn: [message, ...turn] }, { budget: contextBudget(128_000), historyTurns: 50, factor: 1 });
    expect(promptSplitTotal(split)).toBe(fitted.rawTokens);
  });

  it('counts no memories when the memory section is not in the prompt, and everything before an unknown new message as history', () => {
    const messages = [userText('hello'), assistantText('hi')];
    const split = promptSplitOf({ system: 'You are a helpful assistant.', messages }, { memory: MEMORY, newMessages: new Set() });
    expect(split).toMatchObject({ memories: 0, tools: 0, summary: 0, message: 0, turn: 0 });
    expect(split.history).toBeGreaterThan(0);
  });
});
