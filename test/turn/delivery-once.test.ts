import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TurnAbortError } from '../../src/core/turn-abort.js';
import { runningTurnValue } from '../../src/redis/index.js';
import type { TurnStore } from '../../src/turn/turn-dependencies.js';
import { reply } from '../doubles/model-script.js';
import { createTurnFixture, type TurnFixture } from './turn-fixture.js';

let fixture: TurnFixture;

beforeAll(async () => {
  fixture = await createTurnFixture();
});

afterAll(async () => {
  await fixture?.close();
});

/** The real store, except that the next `failures` flushes fail as if PostgreSQL went away. */
function storeFailingFlushes(failures: number): TurnStore {
  let remaining = failures;
  return {
    ...fixture.store,
    flushTurn: async (record) => {
      if (remaining-- > 0) throw new Error('connection to PostgreSQL lost');
      return fixture.store.flushTurn(record);
    },
  };
}

/** Telegram's delivery probe: how a takeover asks whether a part in doubt is in the chat. */
const probesOf = (chatId: number) => fixture.telegram.callsOf('editMessageReplyMarkup').filter((call) => call.params.chat_id === chatId);
const sentTo = (chatId: number) => fixture.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

async function storedRows(userId: number) {
  const rows = await fixture.database.db.execute(
    `SELECT m.role, m.seq FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.key LIKE '%:dm:${userId}' ORDER BY m.seq`,
  );
  return (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ role: string }>;
}

/** The real store, except that a turn holding `poison` is refused as PostgreSQL refuses data it cannot hold. */
function storeRefusing(poison: string): TurnStore {
  return {
    ...fixture.store,
    flushTurn: async (record) => {
      if (JSON.stringify(record).includes(poison)) throw Object.assign(new Error('invalid byte sequence for encoding "UTF8"'), { code: '22021' });
      return fixture.store.flushTurn(record);
    },
  };
}

describe('a turn is delivered once and stored once', () => {
  it('a turn the database refuses for good is stored as failed with placeholders, not retried forever', async () => {
    const message = fixture.dmFrom(7006, 'poison-payload please', fixture.telegram.botId);
    const turnId = randomUUID();
    const outcome = await fixture.runTurnWith(storeRefusing('poison-payload'))(await fixture.request(turnId, [message]));
    expect(outcome.kind).toBe('failed');
    expect(sentTo(7006)).toHaveLength(1); // the answer went out before the flush
    const rows = await fixture.database.db.execute(`SELECT status, error FROM runs WHERE id = '${turnId}'`);
    const [run] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ status: string; error: string }>;
    expect(run).toMatchObject({ status: 'failed' });
    expect(run!.error).toMatch(/^not storable: /);
    expect((await storedRows(7006)).map((row) => row.role)).toEqual(['user']);
    // a retry of the same turn finds it stored and does nothing
    expect((await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]))).kind).toBe('skipped');
  });

  it('does not send again when the flush failed after delivery; the retry only stores', async () => {
    const message = fixture.dmFrom(7001, 'deliver me once', fixture.telegram.botId);
    const turnId = randomUUID();
    const began = Date.now();
    await expect(fixture.runTurnWith(storeFailingFlushes(1))(await fixture.request(turnId, [message]))).rejects.toThrow(/PostgreSQL/);
    const computed = Date.now();
    expect(sentTo(7001)).toHaveLength(1);

    const outcome = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(outcome.kind).toBe('completed');
    expect(sentTo(7001)).toHaveLength(1);
    expect(fixture.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('deliver me once'))).toHaveLength(1);
    expect((await storedRows(7001)).map((row) => row.role)).toEqual(['user', 'assistant']);
    // the times stored are those of the first attempt, read back from its delivery record
    const times = await fixture.database.db.execute(
      `SELECT r.started_at, r.finished_at, m.created_at FROM runs r JOIN messages m ON m.run_id = r.id WHERE r.id = '${turnId}' AND m.role = 'assistant'`,
    );
    const [stored] = (Array.isArray(times) ? times : (times as { rows: unknown[] }).rows) as Array<Record<string, Date>>;
    for (const time of [stored!.started_at, stored!.finished_at, stored!.created_at]) {
      expect(new Date(time!).getTime()).toBeGreaterThanOrEqual(began - 1000);
      expect(new Date(time!).getTime()).toBeLessThanOrEqual(computed);
    }

    // the failed store had the answer recorded as out: the retry did not have to ask Telegram about it
    expect(probesOf(7001)).toHaveLength(0);

    // a third attempt (a duplicate takeover) finds the run stored and does nothing
    expect((await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]))).kind).toBe('skipped');
    expect(sentTo(7001)).toHaveLength(1);
  });

  it('a worker that dies after the last send, before the turn is stored, leaves the part in doubt: the takeover finds it in the chat', async () => {
    const message = fixture.dmFrom(7009, 'die before storing', fixture.telegram.botId);
    const turnId = randomUUID();
    let reachedStore: () => void = () => {};
    const storing = new Promise<void>((resolve) => (reachedStore = resolve));
    // the worker "dies" in the store: its flush never comes back, and nothing after it runs
    const dying: TurnStore = { ...fixture.store, flushTurn: () => (reachedStore(), new Promise(() => {})) };
    void fixture.runTurnWith(dying)(await fixture.request(turnId, [message]));
    await storing;
    expect(sentTo(7009)).toHaveLength(1);

    const takeover = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(takeover.kind).toBe('completed');
    expect(probesOf(7009).length).toBeGreaterThan(0);
    expect(fixture.telegram.visibleMessages(7009).map((sent) => sent.text)).toEqual(['You said: die before storing']);
    expect(sentTo(7009)).toHaveLength(1);
    expect(fixture.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('die before storing'))).toHaveLength(1);
    expect((await storedRows(7009)).map((row) => row.role)).toEqual(['user', 'assistant']);
  });

  it('resumes a reply after the chunks already delivered when a send fails midway', async () => {
    const paragraphs = Array.from({ length: 45 }, (_, index) => `Part ${index}: ${'words and more words '.repeat(12)}`);
    fixture.openai.script.push(paragraphs.join('\n\n'));
    // the first chunk goes out, the second stays rate-limited longer than the channel's own retries last
    fixture.telegram.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1, times: 4, after: 1 });
    const message = fixture.dmFrom(7002, 'long one', fixture.telegram.botId);
    const turnId = randomUUID();
    const first = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(first.kind).toBe('retry');
    expect(sentTo(7002)).toHaveLength(1);
    expect(fixture.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === 7002 && call.failed)).toHaveLength(4);

    const second = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(second.kind).toBe('completed');
    const texts = sentTo(7002).map((call) => String(call.params.text));
    expect(texts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(texts).size).toBe(texts.length); // no chunk twice
    expect(texts[0]).toContain('Part 0:');
    expect(texts.at(-1)).toContain('Part 44:');
    expect(fixture.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('long one'))).toHaveLength(1);
    expect((await storedRows(7002)).map((row) => row.role)).toEqual(['user', 'assistant']);
  });

  it('gives up delivery at once when the platform refuses for good, and stores the turn as failed', async () => {
    fixture.telegram.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user', times: 1 });
    const message = fixture.dmFrom(7004, 'are you there?', fixture.telegram.botId);
    const turnId = randomUUID();
    const outcome = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(outcome.kind).toBe('failed');
    expect(sentTo(7004)).toHaveLength(0);
    const rows = await fixture.database.db.execute(`SELECT status, error FROM runs WHERE id = '${turnId}'`);
    const [run] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ status: string; error: string }>;
    expect(run).toMatchObject({ status: 'failed' });
    expect(run!.error).toMatch(/^delivery failed: .*403/);
    expect((await storedRows(7004)).map((row) => row.role)).toEqual(['user', 'assistant']);
  });

  it('writes nothing when its lease was taken over mid-turn, so the worker that took it over answers and stores it once', async () => {
    fixture.openai.script.push(reply.hang());
    const message = fixture.dmFrom(7005, 'slow question', fixture.telegram.botId);
    const turnId = randomUUID();
    const holder = new AbortController();
    const stalled = fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message], { signal: holder.signal }));
    await fixture.openai.waitFor(() => fixture.openai.inFlight > 0, 5_000);
    holder.abort(new TurnAbortError('leaseLost'));
    expect((await stalled).kind).toBe('skipped');
    expect(await storedRows(7005)).toEqual([]);

    const takeover = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(takeover.kind).toBe('completed');
    expect(sentTo(7005).map((call) => call.params.text)).toEqual(['You said: slow question']);
    expect((await storedRows(7005)).map((row) => row.role)).toEqual(['user', 'assistant']);
  });

  it('a send that failed after Telegram posted it (502 on the way back) is found on the retry, not sent again', async () => {
    fixture.telegram.failNext('sendMessage', { status: 502, description: 'Bad Gateway', committed: true });
    const message = fixture.dmFrom(7007, 'once despite the 502', fixture.telegram.botId);
    const turnId = randomUUID();
    const first = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(first.kind).toBe('retry');
    expect(fixture.telegram.visibleMessages(7007)).toHaveLength(1);

    const second = await fixture.runTurnWith(fixture.store)(await fixture.request(turnId, [message]));
    expect(second.kind).toBe('completed');
    expect(fixture.telegram.visibleMessages(7007).map((sent) => sent.text)).toEqual(['You said: once despite the 502']);
    expect(fixture.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === 7007)).toHaveLength(1);
    expect(fixture.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('once despite the 502'))).toHaveLength(1);
    const rows = await fixture.database.db.execute(`SELECT delivered_message_ids FROM runs WHERE id = '${turnId}'`);
    const [run] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{ delivered_message_ids: string[] }>;
    expect(run!.delivered_message_ids).toEqual([String(fixture.telegram.visibleMessages(7007)[0]!.messageId)]);
  });

  it('a holder whose turn was taken over sends nothing more: its next intent is refused before the platform call', async () => {
    // three parts: the fence is checked where a part's intent is recorded (the answer's last write, "all out", is
    // left to the store that follows, which is idempotent by run id)
    const paragraphs = Array.from({ length: 45 }, (_, index) => `Part ${index}: ${'words and more words '.repeat(12)}`);
    fixture.openai.script.push(paragraphs.join('\n\n'));
    // the first part goes out, the second waits out a 429 (its intent recorded); meanwhile another worker takes the
    // turn over (a new holder token): the second part still goes out, the third is never announced nor sent
    fixture.telegram.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1, times: 1, after: 1 });
    const message = fixture.dmFrom(7008, 'long and taken over', fixture.telegram.botId);
    const turnId = randomUUID();
    const request = await fixture.request(turnId, [message]);
    const running = fixture.runTurnWith(fixture.store)(request);
    await waitUntil(() => fixture.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === 7008 && call.failed));
    await fixture.redis.hset(fixture.keys.session(request.sessionKey).turns, turnId, runningTurnValue('someone-else', Date.now() + 60_000));
    expect((await running).kind).toBe('skipped');
    expect(fixture.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === 7008 && !call.failed)).toHaveLength(2);
    const rows = await fixture.database.db.execute(`SELECT id FROM runs WHERE id = '${turnId}'`);
    expect(Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).toHaveLength(0);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
