import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { TraceSpan } from '../../src/agent/agent-events.js';
import { appendRunSpans, findRun, findSession, flushTurn, latestRunIdOf, loadHistory, messages, runSpans, runs, runSpansOf } from '../../src/store/index.js';
import { newSession, turnRecord } from './fixtures.js';
import { describeEachBackend } from './store-backends.js';

describeEachBackend('flushTurn', (database) => {
  it('writes the messages, the run, its spans and the session totals together', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);

    expect(await flushTurn(db, record)).toEqual({ written: true });

    const history = await loadHistory(db, session.id);
    expect(history.map((message) => message.seq)).toEqual([0, 1, 2, 3]);
    expect(history.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(history.map((message) => message.parts)).toEqual(record.messages.map((message) => message.parts));
    expect(history.every((message) => message.runId === record.runId)).toBe(true);
    expect(history[0]!.createdAt).toEqual(record.messages[0]!.createdAt);

    const [userRow] = await db.select().from(messages).where(eq(messages.sessionId, session.id)).limit(1);
    expect(userRow!.inboundKey).toBe(`telegram:${record.runId}`);

    const run = await findRun(db, record.runId);
    expect(run).toMatchObject({
      id: record.runId,
      sessionId: session.id,
      status: 'completed',
      silent: false,
      provider: 'openai',
      model: 'gpt-test',
      iterations: 2,
      inputTokens: 150,
      outputTokens: 30,
      costUsd: 0.0015,
      error: null,
      durationMs: 1500,
      deliveredMessageIds: ['501'],
    });
    expect(run!.startedAt).toEqual(record.run.startedAt);
    expect(run!.finishedAt).toEqual(record.run.finishedAt);

    const spans = await runSpansOf(db, record.runId);
    expect(spans).toMatchObject([
      { position: 0, kind: 'llm', name: 'openai:gpt-test', iteration: 1, toolCallId: null, durationMs: 120, inputTokens: 100, outputTokens: 20, costUsd: 0.001, isError: false },
      { position: 1, kind: 'tool', name: 'clock', iteration: null, toolCallId: 'call-1', durationMs: 3, isError: false, outputPreview: '10:00' },
    ]);
    expect(spans[0]!.startedAt).toEqual(record.run.startedAt);

    const after = await findSession(db, session.key);
    expect(after).toMatchObject({ nextSeq: 4, inputTokens: 150, outputTokens: 30, costUsd: 0.0015, lastModel: 'gpt-test' });
    expect(after!.updatedAt.getTime()).toBeGreaterThanOrEqual(session.updatedAt.getTime());
  });

  it("adds calls made after a turn was stored (a background summary) to its run, its totals and the session's", async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);
    await flushTurn(db, record);
    const summary: TraceSpan = {
      kind: 'llm',
      name: 'openai:gpt-test',
      provider: 'openai',
      model: 'gpt-test',
      iteration: 0,
      purpose: 'summary',
      startedAt: Date.parse('2025-01-01T10:00:05.000Z'),
      durationMs: 800,
      usage: { inputTokens: 500, outputTokens: 200, cacheReadTokens: 40 },
      costUsd: 0.02,
      error: undefined,
      input: undefined,
    };
    expect(await appendRunSpans(db, record.runId, [{ ...summary, purpose: 'memory-flush', costUsd: 0.01 }, summary])).toEqual({ written: true });
    const spans = await runSpansOf(db, record.runId);
    expect(spans.map((span) => [span.position, span.kind, span.iteration, span.outputPreview, span.inputTokens, span.cacheReadTokens])).toEqual([
      [0, 'llm', 1, null, 100, null],
      [1, 'tool', null, '10:00', null, null],
      [2, 'llm', 0, 'memory flush', 500, 40],
      [3, 'llm', 0, 'summary', 500, 40],
    ]);
    const run = await findRun(db, record.runId);
    expect(run).toMatchObject({ inputTokens: 1150, outputTokens: 430, cacheReadTokens: 80 });
    expect(run!.costUsd).toBeCloseTo(0.0315, 12);
    const after = await findSession(db, session.key);
    expect(after).toMatchObject({ inputTokens: 1150, outputTokens: 430, cacheReadTokens: 80 });
    expect(after!.costUsd).toBeCloseTo(0.0315, 12);
    expect(await latestRunIdOf(db, session.id)).toBe(record.runId);
    expect(await appendRunSpans(db, 'no-such-run', [summary])).toEqual({ written: false });
  });

  it('keeps the messages of a turn left out of the context, flagged as such', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    const refused = turnRecord(session);
    await flushTurn(db, { ...refused, messages: refused.messages.map((message) => ({ ...message, omittedFromContext: true })) });
    const history = await loadHistory(db, session.id);
    expect(history.map((message) => message.omittedFromContext)).toEqual([false, false, false, false, true, true, true, true]);
    expect(history.slice(4).map((message) => message.parts)).toEqual(refused.messages.map((message) => message.parts));
  });

  it('continues the numbering with the next turn', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    await flushTurn(db, turnRecord(session, { messages: turnRecord(session).messages.slice(0, 2) }));

    expect((await loadHistory(db, session.id)).map((message) => message.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 6, inputTokens: 300, outputTokens: 60 });
  });

  it('writes a retried turn once', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);

    expect(await flushTurn(db, record)).toEqual({ written: true });
    expect(await flushTurn(db, record)).toEqual({ written: false });
    // A retry after a partial crash may carry different content: still nothing is written.
    expect(await flushTurn(db, { ...record, messages: record.messages.slice(0, 1) })).toEqual({ written: false });

    expect(await loadHistory(db, session.id)).toHaveLength(4);
    expect(await db.select().from(runs).where(eq(runs.sessionId, session.id))).toHaveLength(1);
    expect(await runSpansOf(db, record.runId)).toHaveLength(2);
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 4, inputTokens: 150 });
  });

  it('writes a run id flushed concurrently once', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);

    const results = await Promise.all([flushTurn(db, record), flushTurn(db, record), flushTurn(db, record)]);

    expect(results.filter((result) => result.written)).toHaveLength(1);
    expect(await loadHistory(db, session.id)).toHaveLength(4);
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 4 });
  });

  it('gives concurrent turns of one session gapless, contiguous seqs', async () => {
    const { db } = database();
    const session = await newSession(db, 'group');
    const records = Array.from({ length: 10 }, (_, index) =>
      turnRecord(session, { messages: turnRecord(session).messages.slice(0, 1 + (index % 4)) }),
    );

    const results = await Promise.all(records.map((record) => flushTurn(db, record)));

    expect(results.every((result) => result.written)).toBe(true);
    const total = records.reduce((sum, record) => sum + record.messages.length, 0);
    const history = await loadHistory(db, session.id);
    expect(history.map((message) => message.seq)).toEqual(Array.from({ length: total }, (_, seq) => seq));
    const runOrder = history.map((message) => message.runId);
    for (const record of records) {
      const first = runOrder.indexOf(record.runId);
      expect(runOrder.slice(first, first + record.messages.length)).toEqual(record.messages.map(() => record.runId));
      expect(runOrder.lastIndexOf(record.runId)).toBe(first + record.messages.length - 1);
      // Within a turn the messages keep their order.
      const stored = history.slice(first, first + record.messages.length).map((message) => message.parts);
      expect(stored).toEqual(record.messages.map((message) => message.parts));
    }
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: total, inputTokens: 150 * records.length });
  });

  it('leaves nothing behind when a write fails part-way', async () => {
    const { db } = database();
    const session = await newSession(db);
    await flushTurn(db, turnRecord(session));
    // The run and messages are fine; the last span's duration overflows its integer column.
    const badSpan: TraceSpan = { kind: 'tool', name: 'x', toolCallId: 'c', startedAt: Date.now(), durationMs: 1e12, isError: false, error: undefined, outputPreview: '' };
    const failing = turnRecord(session, { spans: [...turnRecord(session).spans, badSpan] });

    await expect(flushTurn(db, failing)).rejects.toThrow();

    expect(await findRun(db, failing.runId)).toBeUndefined();
    expect(await db.select().from(runSpans).where(eq(runSpans.runId, failing.runId))).toEqual([]);
    expect(await loadHistory(db, session.id)).toHaveLength(4);
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 4, inputTokens: 150 });

    // The same turn, fixed, can still be written afterwards.
    expect(await flushTurn(db, { ...failing, spans: failing.spans.slice(0, 2) })).toEqual({ written: true });
    expect((await loadHistory(db, session.id)).map((message) => message.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('rejects a message with an unknown role without writing the run', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);
    const failing = { ...record, messages: [...record.messages, { role: 'system', parts: [], createdAt: new Date() }] } as typeof record;

    await expect(flushTurn(db, failing)).rejects.toThrow();

    expect(await findRun(db, record.runId)).toBeUndefined();
    expect(await findSession(db, session.key)).toMatchObject({ nextSeq: 0, inputTokens: 0 });
  });

  it('stores a failed, silent run with no spans and an error', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);
    const failed = {
      ...record,
      messages: record.messages.slice(0, 1),
      run: { ...record.run, status: 'failed' as const, silent: true, error: 'model overloaded', deliveredMessageIds: [] },
      spans: [],
    };

    expect(await flushTurn(db, failed)).toEqual({ written: true });

    expect(await findRun(db, record.runId)).toMatchObject({ status: 'failed', silent: true, error: 'model overloaded', deliveredMessageIds: [] });
    expect(await runSpansOf(db, record.runId)).toEqual([]);
    expect(await loadHistory(db, session.id)).toHaveLength(1);
  });

  it('stores text with NUL characters, which PostgreSQL cannot hold, as U+FFFD', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);
    const withNul = {
      ...record,
      messages: [{ role: 'tool' as const, parts: [{ type: 'tool-result' as const, toolCallId: 'c', name: 'cat', content: 'a\u0000b', isError: false }], createdAt: new Date() }],
      run: { ...record.run, error: 'bad\u0000byte' },
    };

    expect(await flushTurn(db, withNul)).toEqual({ written: true });

    const [stored] = await loadHistory(db, session.id);
    expect(stored!.parts).toEqual([{ type: 'tool-result', toolCallId: 'c', name: 'cat', content: 'a\uFFFDb', isError: false }]);
    expect((await findRun(db, record.runId))!.error).toBe('bad\uFFFDbyte');
  });

  it('stores lone surrogates as U+FFFD, and leaves backslashes, escapes as text and paired surrogates as they are', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord(session);
    const texts = ['lone \uD800 high', 'lone \uDFFF low', 'pair \uD83D\uDE00', 'text \\u0000 and \\uD800', 'slashes \\\\\u0000', 'quote " tab \t ctl \u001f'];
    const odd = {
      ...record,
      messages: texts.map((text) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text }], createdAt: new Date() })),
    };

    expect(await flushTurn(db, odd)).toEqual({ written: true });

    const stored = (await loadHistory(db, session.id)).map((message) => (message.parts[0] as { text: string }).text);
    expect(stored).toEqual(['lone \uFFFD high', 'lone \uFFFD low', 'pair \uD83D\uDE00', 'text \\u0000 and \\uD800', 'slashes \\\\\uFFFD', 'quote " tab \t ctl \u001f']);
  });

  it('fails for a session that does not exist', async () => {
    const { db } = database();
    const session = await newSession(db);
    const record = turnRecord({ ...session, id: '00000000-0000-4000-8000-000000000000' });

    await expect(flushTurn(db, record)).rejects.toThrow();
    expect(await findRun(db, record.runId)).toBeUndefined();
  });
});
