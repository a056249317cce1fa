import { describe, expect, it } from 'vitest';
import { createCommandHandler, findChoice, priceClassOf, type ModelChoice, type ModelChoices } from '../../src/commands/index.js';
import type { CommandButton, InboundMessage } from '../../src/core/index.js';
import { sessionKeyOf } from '../../src/core/session-key.js';
import { priceOf } from '../../src/llm/index.js';
import { inboundMessage } from '../support/messages.js';

const choice = (provider: string, name: string, contextWindow = 128_000): ModelChoice => ({ key: `${provider}:${name}`, provider, name, contextWindow, price: priceOf(name) });
const CHOICES = [choice('openai', 'gpt-4o-mini'), choice('openai', 'gpt-4o'), choice('anthropic', 'claude-haiku-4-5', 200_000), choice('openai', 'llama3:8b')];

/** The choices of one agent, the choice kept per session in memory (the app keeps it in PostgreSQL). */
function choicesInMemory(): ModelChoices & { kept: Map<string, string | undefined> } {
  const kept = new Map<string, string | undefined>();
  return { kept, choices: () => CHOICES, scope: () => 'session', chosen: async (sessionKey) => kept.get(sessionKey), choose: async (sessionKey, _message, key) => void kept.set(sessionKey, key) };
}

function handlerWith(models: ModelChoices | undefined) {
  const replies: Array<{ text: string; buttons?: CommandButton[] }> = [];
  const handle = createCommandHandler({
    stopSession: async () => ({ abortedTurns: 0, droppedMessages: 0 }),
    resetSession: async () => {},
    requestCompaction: async () => 'nothing-to-compact',
    sessionUsage: async () => undefined,
    queueDepth: async () => ({ pending: 0, active: 0 }),
    model: { provider: 'openai', name: 'gpt-4o-mini', contextWindow: 128_000 },
    reply: async (_message, text) => void replies.push({ text }),
    replyWithButtons: async (_message, text, buttons) => void replies.push({ text, buttons }),
    ...(models ? { models } : {}),
  });
  return { replies, run: (message: InboundMessage, text: string) => handle({ name: text.startsWith('/status') ? 'status' : 'model', args: text.split(' ').slice(1).join(' ') }, message) };
}

describe('/model', () => {
  it('finds a model by provider:model, provider/model, its name alone (when only one has it) or its number; any case', () => {
    expect(findChoice(CHOICES, 'openai:gpt-4o')?.name).toBe('gpt-4o');
    expect(findChoice(CHOICES, 'OpenAI/GPT-4o')?.name).toBe('gpt-4o');
    expect(findChoice(CHOICES, 'claude-haiku-4-5')?.provider).toBe('anthropic');
    expect(findChoice(CHOICES, 'openai:llama3:8b')?.name).toBe('llama3:8b');
    expect(findChoice(CHOICES, '3')?.name).toBe('claude-haiku-4-5');
    expect(findChoice(CHOICES, '0')).toBeUndefined();
    expect(findChoice(CHOICES, '5')).toBeUndefined();
    expect(findChoice(CHOICES, 'gpt-4')).toBeUndefined();
    expect(findChoice([...CHOICES, choice('anthropic', 'gpt-4o')], 'gpt-4o')).toBeUndefined();
  });

  it('names a price class from the input price, with both prices', () => {
    expect(priceClassOf(priceOf('gpt-4o-mini'))).toBe('low price ($0.15 in, $0.6 out per million tokens)');
    expect(priceClassOf(priceOf('claude-haiku-4-5'))).toBe('medium price ($1 in, $5 out per million tokens)');
    expect(priceClassOf(priceOf('claude-opus-4-1'))).toBe('high price ($15 in, $75 out per million tokens)');
    expect(priceClassOf(priceOf('gpt-5-nano'))).toBe('low price ($0.05 in, $0.4 out per million tokens)');
    expect(priceClassOf(undefined)).toBe('price unknown');
  });

  it('lists with a button per model; chooses per session; refuses a model not in the list with the list; /status names the choice', async () => {
    const models = choicesInMemory();
    const { replies, run } = handlerWith(models);
    const alice = inboundMessage({ text: '/model' });
    const key = sessionKeyOf(alice);

    await run(alice, '/model');
    expect(replies.at(-1)!.text).toBe(
      [
        'Models for this chat (now openai/gpt-4o-mini):',
        '1. openai/gpt-4o-mini: low price ($0.15 in, $0.6 out per million tokens) (in use)',
        '2. openai/gpt-4o: medium price ($2.5 in, $10 out per million tokens)',
        '3. anthropic/claude-haiku-4-5: medium price ($1 in, $5 out per million tokens)',
        '4. openai/llama3:8b: price unknown',
        'Tap one, or send /model <name>.',
      ].join('\n'),
    );
    expect(replies.at(-1)!.buttons).toEqual([
      { label: '✓ gpt-4o-mini', command: '/model openai:gpt-4o-mini', shortCommand: '/model 1' },
      { label: 'gpt-4o', command: '/model openai:gpt-4o', shortCommand: '/model 2' },
      { label: 'claude-haiku-4-5', command: '/model anthropic:claude-haiku-4-5', shortCommand: '/model 3' },
      { label: 'llama3:8b', command: '/model openai:llama3:8b', shortCommand: '/model 4' },
    ]);

    await run(alice, '/model anthropic:claude-haiku-4-5');
    expect(replies.at(-1)).toEqual({ text: 'Model for this session: anthropic/claude-haiku-4-5 (medium price ($1 in, $5 out per million tokens)). The next answer uses it.' });
    expect(models.kept.get(key)).toBe('anthropic:claude-haiku-4-5');
    expect((await run(alice, '/status')).split('\n')[0]).toBe('Model: anthropic/claude-haiku-4-5 (chosen with /model)');
    expect(await run(alice, '/status')).toContain('of 200,000 tokens');

    await run(alice, '/model gpt-5');
    expect(replies.at(-1)!.text).toMatch(/^"gpt-5" is not a model this chat may use\. Choose one of:\n1\. openai\/gpt-4o-mini/);
    expect(replies.at(-1)!.text).toContain('3. anthropic/claude-haiku-4-5: medium price ($1 in, $5 out per million tokens) (in use)');
    expect(replies.at(-1)!.buttons).toHaveLength(4);
    expect(models.kept.get(key)).toBe('anthropic:claude-haiku-4-5');
    await run(alice, `/model ${'x'.repeat(500)}`);
    expect(replies.at(-1)!.text.split('\n')[0]).toBe(`"${'x'.repeat(79)}…" is not a model this chat may use. Choose one of:`);

    // another session keeps its own; the agent's own model again is kept as no choice
    const bob = inboundMessage({ text: '/model', sender: { id: 'bob' } });
    expect((await run(bob, '/status')).split('\n')[0]).toBe('Model: openai/gpt-4o-mini');
    await run(alice, '/model 1');
    expect(models.kept.has(key) && models.kept.get(key)).toBeUndefined();
    expect((await run(alice, '/status')).split('\n')[0]).toBe('Model: openai/gpt-4o-mini');
  });

  it('a choice the agent no longer allows counts as its own model; without choices /model names the one model', async () => {
    const models = choicesInMemory();
    const message = inboundMessage({ text: '/model' });
    models.kept.set(sessionKeyOf(message), 'openai:gpt-3.5-turbo');
    expect((await handlerWith(models).run(message, '/status')).split('\n')[0]).toBe('Model: openai/gpt-4o-mini');
    const plain = handlerWith(undefined);
    expect(await plain.run(message, '/model gpt-4o')).toBe('This chat uses openai/gpt-4o-mini; no other model is offered here.');
    expect(plain.replies.at(-1)!.buttons).toBeUndefined();
  });
});
