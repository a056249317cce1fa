import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape, sumOf } from '../../bench/prometheus.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { freePort, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * What one message costs, in counts (stable where times are not), on a Redis of its own so that INFO commandstats
 * counts only this service: a few hundred DMs from returning sessions through the real pipeline (webhook, queue,
 * model, Telegram, PostgreSQL). Issue 23's targets: at most 45 Redis commands per message (script internals
 * counted, as Redis counts them), at most 1 PostgreSQL read and 1 write per turn, and no read at all for a
 * returning session this process answered before. A feature that needs more changes these numbers here, in the
 * open, with the reason.
 */
// the issue-23 bound was 45; 33.8 measured once unlimited spend was batched (budgets/budget-ledger.ts), 29.2 later;
// 21.8 since a message that finds its session idle is claimed by the enqueue itself (redis/lua/enqueue.lua); 23.7-26.1
// on 2026-12-07 in four runs of the same code, the more the busier the machine: a message that came while its
// session's last turn was being stored waited in the queue (now each round waits for the last one's turns), and spend
// under no limit is added in batches (budgets/budget-ledger.ts), more and smaller in a slower run. Kept near it.
const MAX_REDIS_COMMANDS_PER_MESSAGE = 26;
const MAX_PG_READS_PER_TURN = 0;
const MAX_PG_WRITES_PER_TURN = 1;
// a new session's first turn: its snapshot finds nothing and the memory section reads the scope's memories (2 reads);
// the session row is inserted and the turn flushed (2 writes).
const MAX_PG_READS_PER_NEW_SESSION = 2;
const MAX_PG_WRITES_PER_NEW_SESSION = 2;
const SESSIONS = 40;
const ROUNDS = 5;

let environment: E2eEnvironment;
let service: ServiceProcess;
let redisServer: ChildProcess;
let redis: Redis;
let redisDir: string;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  const port = await freePort();
  redisDir = mkdtempSync(join(tmpdir(), 'cost-redis-'));
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir], { stdio: 'ignore' });
  redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: (attempt) => (attempt > 50 ? null : 100) });
  redis.on('error', () => undefined);
  // one connect: when the server is not listening yet, ioredis retries by itself (a second connect() while it
  // does is refused as "already connecting", so asking again would never see it ready)
  redis.connect().catch(() => undefined);
  await waitFor(() => redis.status === 'ready' || undefined, { what: 'the private redis-server' });
  service = await startServiceProcess(environment.env({ REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'error' }));
}, 60_000);

afterAll(async () => {
  await service?.stop();
  redis?.disconnect();
  redisServer?.kill('SIGKILL');
  rmSync(redisDir, { recursive: true, force: true });
  await environment?.close();
});

/** Calls per command as Redis counts them (inside scripts too), without this test's own probes. */
async function commandCalls(): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (match[1] !== 'info' && match[1] !== 'config') calls.set(match[1]!, Number(match[2]));
  }
  return calls;
}

async function answeredRound(round: number): Promise<void> {
  const sent = () => environment.telegram.callsOf('sendMessage').length;
  const before = sent();
  await Promise.all(
    Array.from({ length: SESSIONS }, (_, index) =>
      postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(900_000 + index, `round ${round} from ${index}`)),
    ),
  );
  await waitFor(() => sent() - before >= SESSIONS || undefined, { timeoutMs: 30_000, what: `round ${round}'s answers` });
}

describe('the cost of one message (counts, not times)', () => {
  it(`stays within ${MAX_REDIS_COMMANDS_PER_MESSAGE} Redis commands per message and ${MAX_PG_READS_PER_TURN} reads / ${MAX_PG_WRITES_PER_TURN} write per returning turn`, async () => {
    environment.openai.script.respondWith((_request, text) => `noted: ${text}`);
    // every session once: new sessions (their first turn reads and creates the session)
    const initial = await scrape(service.url);
    await answeredRound(0);
    // a turn is counted once it is stored and released, just after its answer went out: wait for round 0's
    const before = await waitFor(async () => {
      const samples = await scrape(service.url);
      return sumOf(samples, 'bot_turns_total', { outcome: 'completed' }) >= SESSIONS ? samples : undefined;
    }, { what: "round 0's turns stored" });
    const newSessions = {
      pgReadsPerTurn: (sumOf(before, 'bot_db_statements_total', { kind: 'read' }) - sumOf(initial, 'bot_db_statements_total', { kind: 'read' })) / SESSIONS,
      pgWritesPerTurn: (sumOf(before, 'bot_db_statements_total', { kind: 'write' }) - sumOf(initial, 'bot_db_statements_total', { kind: 'write' })) / SESSIONS,
    };
    const callsBefore = await commandCalls();
    const messages = SESSIONS * ROUNDS;
    const completed = (samples: Awaited<ReturnType<typeof scrape>>) => sumOf(samples, 'bot_turns_total', { outcome: 'completed' }) - sumOf(before, 'bot_turns_total', { outcome: 'completed' });
    for (let round = 1; round <= ROUNDS; round++) {
      await answeredRound(round);
      // every session idle again before the next round, as a returning user finds it: a message that arrives while
      // its session's last turn is still being stored waits in the queue, which costs more commands at a pace that
      // depends on how busy the machine is, not on the service
      await waitFor(async () => (completed(await scrape(service.url)) >= SESSIONS * round ? true : undefined), { what: `round ${round}'s turns stored` });
    }
    // a turn is counted once it is stored and released, just after its answer went out
    const after = await waitFor(async () => {
      const samples = await scrape(service.url);
      return completed(samples) >= messages ? samples : undefined;
    }, { what: 'every turn stored' });
    const callsAfter = await commandCalls();
    const perCommand = [...callsAfter].map(([command, count]) => [command, (count - (callsBefore.get(command) ?? 0)) / messages] as const).filter(([, count]) => count > 0);
    const calls = perCommand.reduce((sum, [, count]) => sum + count, 0) * messages;
    const delta = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
    const turns = completed(after);
    const figures = {
      redisCommandsPerMessage: calls / messages,
      pgReadsPerTurn: delta('bot_db_statements_total', { kind: 'read' }) / turns,
      pgWritesPerTurn: delta('bot_db_statements_total', { kind: 'write' }) / turns,
      redisCommands: Object.fromEntries(perCommand.sort((a, b) => b[1] - a[1]).map(([command, count]) => [command, Math.round(count * 100) / 100])),
    };
    process.stdout.write(`cost per message: ${JSON.stringify({ ...figures, newSessions })}\n`);
    expect(turns).toBe(messages);
    expect(figures.redisCommandsPerMessage).toBeLessThanOrEqual(MAX_REDIS_COMMANDS_PER_MESSAGE);
    expect(figures.pgReadsPerTurn).toBeLessThanOrEqual(MAX_PG_READS_PER_TURN);
    expect(figures.pgWritesPerTurn).toBeLessThanOrEqual(MAX_PG_WRITES_PER_TURN);
    expect(newSessions.pgReadsPerTurn).toBeLessThanOrEqual(MAX_PG_READS_PER_NEW_SESSION);
    expect(newSessions.pgWritesPerTurn).toBeLessThanOrEqual(MAX_PG_WRITES_PER_NEW_SESSION);
  }, 120_000);
});
