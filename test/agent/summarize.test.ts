import { describe, expect, it } from 'vitest';
import { memoryFlushTurn, MEMORY_FLUSH_PROMPT, shouldSummarize, summarizeConversation, summaryCutPoint } from '../../src/agent/index.js';
import { createFileTools } from '../../src/agent/tools/file-tools.js';
import { assistantText, textOf, userText, type ChatMessage } from '../../src/core/chat-message.js';
import { BotError } from '../../src/core/errors.js';
import { testToolContext } from './support/agent-run.js';
import { ScriptedModel } from './support/scripted-model.js';
import { echoTool } from './support/test-tools.js';

const conversation = (pairs: number): ChatMessage[] =>
  Array.from({ length: pairs }, (_unused, index) => [userText(`question ${index}`), assistantText(`answer ${index}`)]).flat();

describe('shouldSummarize', () => {
  it.each([
    [{ messageCount: 50, estimatedTokens: 1000, contextWindow: 100_000 }, false],
    [{ messageCount: 51, estimatedTokens: 1000, contextWindow: 100_000 }, true],
    [{ messageCount: 10, estimatedTokens: 60_000, contextWindow: 100_000 }, false],
    [{ messageCount: 10, estimatedTokens: 60_001, contextWindow: 100_000 }, true],
    // the window is full of the last few messages: a summary would free almost nothing
    [{ messageCount: 10, estimatedTokens: 90_000, contextWindow: 100_000, summarizableTokens: 20_000 }, false],
    [{ messageCount: 10, estimatedTokens: 90_000, contextWindow: 100_000, summarizableTokens: 20_001 }, true],
  ])('%j → %s', (trigger, expected) => {
    expect(shouldSummarize(trigger)).toBe(expected);
  });
});

describe('summarizeConversation', () => {
  it('summarizes all but the last 4 messages with low temperature, bounded tokens and no tools', async () => {
    const model = new ScriptedModel([{ text: '<think>hmm</think>The user asked 3 questions about cats.' }]);
    const messages = conversation(5);
    const result = await summarizeConversation(model, messages, { previousSummary: 'They like cats.' });
    expect(result).toEqual({ summary: 'The user asked 3 questions about cats.', coversCount: 6 });
    const request = model.requests[0]!;
    expect(request).toMatchObject({ toolChoice: 'none', maxTokens: 1024, temperature: 0.3 });
    expect(request.tools).toBeUndefined();
    const prompt = textOf(request.messages[0]!);
    expect(prompt).toContain('They like cats.');
    expect(prompt).toContain('User: question 2');
    expect(prompt).not.toContain('question 3');
    expect(request.signal).toBeInstanceOf(AbortSignal);
  });

  it('never starts the kept part with a tool result whose call it would cut off', () => {
    const messages: ChatMessage[] = [
      userText('q'),
      assistantText('a'),
      userText('q2'),
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name: 'x', arguments: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c', name: 'x', content: 'r', isError: false }] },
      assistantText('a2'),
      userText('q3'),
      assistantText('a3'),
    ];
    expect(summaryCutPoint(messages)).toBe(3);
  });

  it('returns undefined when there is nothing older than the kept messages', async () => {
    const model = new ScriptedModel([]);
    expect(await summarizeConversation(model, conversation(2))).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it('an empty summary is an error, and a timeout is reported as one', async () => {
    await expect(summarizeConversation(new ScriptedModel([{ text: '   ' }]), conversation(4))).rejects.toThrow(/empty summary/);
    const hanging = new ScriptedModel([{ hangUntilAborted: true }]);
    const error = await summarizeConversation(hanging, conversation(4), { timeoutMs: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect((error as BotError).code).toBe('timeout');
  });
});

describe('memoryFlushTurn', () => {
  it('builds a short tool turn with only read_file/write_file, recent messages and the flush prompt', () => {
    const signal = new AbortController().signal;
    const model = new ScriptedModel([]);
    const input = memoryFlushTurn({
      runId: 'flush-1',
      messages: conversation(8),
      recentMessages: 9,
      tools: [...createFileTools(), echoTool()],
      model,
      signal,
      toolContext: testToolContext(signal),
    });
    expect(input.tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file']);
    expect(input.maxIterations).toBe(5);
    // The last 9 messages start with an assistant answer, which is dropped so the turn starts with the user.
    expect(input.messages[0]?.role).toBe('user');
    expect(input.messages).toHaveLength(9);
    expect(textOf(input.messages.at(-1)!)).toBe(MEMORY_FLUSH_PROMPT);
    expect(MEMORY_FLUSH_PROMPT).toBe('Store durable memories now, if nothing to store reply NO_REPLY.');
    expect(input.system).toMatch(/NO_REPLY/);
  });
});
