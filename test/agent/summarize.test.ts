import { describe, expect, it } from 'vitest';
import { flushMemoryFacts, MEMORY_FLUSH_PROMPT, MEMORY_FLUSH_SYSTEM, parseFlushedFacts, shouldSummarize, summarizeConversation, summaryCutPoint } from '../../src/agent/index.js';
import { assistantText, textOf, userText, type ChatMessage } from '../../src/core/chat-message.js';
import { BotError } from '../../src/core/errors.js';
import { ScriptedModel } from './support/scripted-model.js';

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

describe('flushMemoryFacts', () => {
  it('asks once, without tools, over the conversation, and keeps the listed facts', async () => {
    const model = new ScriptedModel([{ text: '- The user is called Grace.\n- Grace prefers tea over coffee.' }]);
    const facts = await flushMemoryFacts(model, conversation(3));
    expect(facts).toEqual(['The user is called Grace.', 'Grace prefers tea over coffee.']);
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.system).toBe(MEMORY_FLUSH_SYSTEM);
    expect(request.toolChoice).toBe('none');
    const prompt = textOf(request.messages[0]!);
    expect(prompt).toContain('User: question 2');
    expect(prompt).toContain('Assistant: answer 0');
    expect(prompt.endsWith(MEMORY_FLUSH_PROMPT)).toBe(true);
  });

  it('NO_REPLY stores nothing; lists are bounded', () => {
    expect(parseFlushedFacts('NO_REPLY')).toEqual([]);
    expect(parseFlushedFacts('Here they are:\n- one\n* two\n3. not asked for')).toEqual(['one', 'two']);
    expect(parseFlushedFacts('You said: <conversation>\n- User: hi\n</conversation>')).toEqual([]);
    expect(parseFlushedFacts(Array.from({ length: 30 }, (_unused, index) => `- fact ${index}`).join('\n'))).toHaveLength(10);
  });
});
