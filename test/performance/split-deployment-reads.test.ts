import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape, sumOf } from '../../bench/prometheus.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * A gateway and two workers: a returning session's turns run on the worker its history is cached in (each session
 * keeps its worker, src/redis/worker-roster.ts), so they read nothing from PostgreSQL, as in one ROLE=all process.
 * With any worker taking any session, two workers read a returning session's history on about 0.8 of its turns.
 */
const SESSIONS = 24;
const ROUNDS = 4;
// a read is a session that moved to another worker meanwhile (none do while both workers beat)
const MAX_PG_READS_PER_RETURNING_TURN = 0.05;

let environment: E2eEnvironment;
let gateway: ServiceProcess;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  environment = await createE2eEnvironment();
  gateway = await startServiceProcess(environment.env({ ROLE: 'gateway', LOG_LEVEL: 'error' }));
  for (let index = 0; index < 2; index++) workers.push(await startServiceProcess(environment.env({ ROLE: 'worker', LOG_LEVEL: 'error' })));
  // every process reads the workers' registry once a second: the gateway's view has both workers after this
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}, 60_000);

afterAll(async () => {
  await Promise.all([gateway, ...workers].filter(Boolean).map((service) => service.stop()));
  await environment?.close();
});

const sent = () => environment.telegram.callsOf('sendMessage').length;

async function answeredRound(round: number): Promise<void> {
  const before = sent();
  await Promise.all(
    Array.from({ length: SESSIONS }, (_, index) =>
      postTelegramUpdate(gateway.url, environment.telegram.makeUpdate.privateText(950_000 + index, `round ${round} from ${index}`)),
    ),
  );
  await waitFor(() => sent() - before >= SESSIONS || undefined, { timeoutMs: 30_000, what: `round ${round}'s answers` });
}

/** The workers' metrics summed: turns stored and statements by kind. */
async function workerCounts() {
  const samples = await Promise.all(workers.map((worker) => scrape(worker.url)));
  const sum = (name: string, labels: Record<string, string>) => samples.reduce((total, sample) => total + sumOf(sample, name, labels), 0);
  return {
    turns: sum('bot_turns_total', { outcome: 'completed' }),
    reads: sum('bot_db_statements_total', { kind: 'read' }),
    perWorker: samples.map((sample) => sumOf(sample, 'bot_turns_total', { outcome: 'completed' })),
  };
}

describe('a gateway and two workers (counts, not times)', () => {
  it(`read at most ${MAX_PG_READS_PER_RETURNING_TURN} statements per returning turn, the sessions spread over both workers`, async () => {
    environment.openai.script.respondWith((_request, text) => `noted: ${text}`);
    // new sessions, then one returning round more: a session placed before the gateway saw both workers moves once
    await answeredRound(0);
    await answeredRound(1);
    const before = await waitFor(async () => {
      const counts = await workerCounts();
      return counts.turns >= 2 * SESSIONS ? counts : undefined;
    }, { what: 'the first two rounds stored' });
    for (let round = 2; round < 2 + ROUNDS; round++) await answeredRound(round);
    const after = await waitFor(async () => {
      const counts = await workerCounts();
      return counts.turns - before.turns >= SESSIONS * ROUNDS ? counts : undefined;
    }, { what: 'every turn stored' });
    const turns = after.turns - before.turns;
    const readsPerTurn = (after.reads - before.reads) / turns;
    process.stdout.write(`gateway + 2 workers: ${JSON.stringify({ turns, readsPerTurn, turnsPerWorker: after.perWorker })}\n`);
    expect(turns).toBe(SESSIONS * ROUNDS);
    expect(readsPerTurn).toBeLessThanOrEqual(MAX_PG_READS_PER_RETURNING_TURN);
    // both workers have sessions of their own
    for (const count of after.perWorker) expect(count).toBeGreaterThan(SESSIONS);
  }, 120_000);
});
