import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnStore } from '../../src/turn/turn-dependencies.js';
import { createTurnFixture, type TurnFixture } from './turn-fixture.js';

let fixture: TurnFixture;

beforeAll(async () => {
  fixture = await createTurnFixture();
});

afterAll(async () => {
  await fixture?.close();
});

const systemPromptOf = (body: { messages: Array<{ role: string; content: unknown }> }): string => {
  const system = body.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
};

describe("a turn's reads of PostgreSQL before the model", () => {
  it("asks for the sender's memories while the session is being opened, not after", async () => {
    let memoriesAsked!: () => void;
    const asked = new Promise<void>((resolve) => (memoriesAsked = resolve));
    let releaseMemories!: () => void;
    const memoriesRead = new Promise<void>((resolve) => (releaseMemories = resolve));
    const order: string[] = [];
    // the real store, except that opening the session waits until the memories were asked for (a sequential read
    // would never get there: the session's read is what it would wait for)
    const store: TurnStore = {
      ...fixture.store,
      openSession: async (session, version) => {
        order.push('open: started');
        await Promise.race([asked, new Promise((_, reject) => setTimeout(() => reject(new Error('memories were not asked for while the session opened')), 5_000))]);
        const opened = await fixture.store.openSession(session, version);
        order.push('open: done');
        releaseMemories();
        return opened;
      },
    };
    const message = fixture.dmFrom(7301, 'what do I like to drink?', fixture.telegram.botId);
    const callsBefore = fixture.openai.modelCalls.length;
    const outcome = await fixture.runTurnWith(store, {
      memoryLines: async (latest, query) => {
        order.push(`memories: asked for ${latest.sender.id} by "${query}"`);
        memoriesAsked();
        await memoriesRead;
        order.push('memories: read');
        return ['- Ada likes green tea'];
      },
    })(await fixture.request(randomUUID(), [message]));

    expect(outcome.kind).toBe('completed');
    expect(order).toEqual(['memories: asked for 7301 by "what do I like to drink?"', 'open: started', 'open: done', 'memories: read']);
    const call = fixture.openai.modelCalls.slice(callsBefore).at(0);
    expect(systemPromptOf(call!.body)).toContain('Ada likes green tea');
  });

  it('answers without the memory section when the memories cannot be read, the session opened as usual', async () => {
    const message = fixture.dmFrom(7302, 'hello there', fixture.telegram.botId);
    const callsBefore = fixture.openai.modelCalls.length;
    const outcome = await fixture.runTurnWith(fixture.store, {
      memoryLines: async () => {
        throw new Error('connection to PostgreSQL lost');
      },
    })(await fixture.request(randomUUID(), [message]));

    expect(outcome.kind).toBe('completed');
    const call = fixture.openai.modelCalls.slice(callsBefore).at(0);
    expect(call).toBeDefined();
    expect(systemPromptOf(call!.body)).not.toContain('Ada likes');
  });
});
