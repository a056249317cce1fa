// `node dist/bench/redis-trace.js [messages]`: counts the Redis commands one message costs in the real pipeline
// (ROLE=all, model 0 ms). Sends messages one at a time to returning DM sessions while a MONITOR connection
// records every command carrying this run's prefix, then splits them into round trips the service makes
// (by command, Lua scripts named) and commands run inside Lua scripts. Not part of `npm run bench`:
// MONITOR slows Redis down.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { readdirSync as listLua } from 'node:fs';
import { luaSource } from '../src/redis/lua-source.js';
import { createTestDatabase, TEST_REDIS_URL, uniqueName } from '../test/support/services.js';
import { startDeployment } from './deployment.js';
import { closedLoop } from './load.js';
import { progress, sleep } from './progress.js';
import { deleteKeysWithPrefix } from './redis-stats.js';
import { SessionPool, updateFactory } from './traffic.js';

const messages = Number(process.argv[2] ?? 30);
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** sha → script name for the scheduler's scripts and BullMQ's. */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const luaFolder = join(import.meta.dirname, '..', '..', 'src', 'redis', 'lua');
  for (const file of listLua(luaFolder).filter((entry) => entry.endsWith('.lua'))) names.set(sha1(luaSource(file.slice(0, -4))), `redis.${file.slice(0, -4)}`);
  const directory = join(import.meta.dirname, '..', '..', 'node_modules', 'bullmq', 'dist', 'esm', 'scripts');
  for (const file of readdirSync(directory).filter((entry) => /^[a-zA-Z]+-\d+\.js$/.test(entry))) {
    const module = (await import(pathToFileURL(join(directory, file)).href)) as Record<string, { name: string; content: string }>;
    for (const script of Object.values(module)) if (script?.content) names.set(sha1(script.content), `bullmq.${script.name}`);
  }
  return names;
}

interface Traced {
  at: number;
  source: string;
  command: string;
}

const count = (rows: string[]) => {
  const map = new Map<string, number>();
  for (const row of rows) map.set(row, (map.get(row) ?? 0) + 1);
  return [...map.entries()].sort((a, b) => b[1] - a[1]);
};

const redis = new Redis(TEST_REDIS_URL);
const database = await createTestDatabase();
const prefix = `${uniqueName('bench')}_trace`;
const deployment = await startDeployment({ name: 'trace', roles: ['all'], prefix, databaseUrl: database.url, redisUrl: TEST_REDIS_URL, workerConcurrency: 32 });
try {
  const names = await scriptNames();
  const pool = new SessionPool(updateFactory(deployment.telegram), { dmUsers: 5, groups: 0, firstUserId: 9_000_000, firstGroupId: -9_000_000_000, groupEvery: 0 }).followAnswers(
    deployment.tracker,
  );
  const oneByOne = (count: number) =>
    closedLoop({ client: deployment.client, tracker: deployment.tracker, source: pool, count, maxOutstanding: 1, maxPosts: 1, timeLimitMs: 60_000 });
  await oneByOne(10); // every session exists, the process is warm
  await sleep(500);

  const monitor = await redis.monitor();
  const traced: Traced[] = [];
  monitor.on('monitor', (time: string, args: string[], source: string) => {
    if (!args.some((arg) => arg.includes(prefix))) return;
    const [name, ...rest] = args;
    let command = name!.toLowerCase();
    if (command === 'evalsha') command = `evalsha ${names.get(rest[0]!) ?? rest[0]!.slice(0, 8)}`;
    traced.push({ at: Number(time) * 1000, source, command });
  });
  await sleep(200);
  // idle first: what the deployment does on its own (BullMQ's blocking waits, stalled checks)
  const idleMs = 2_000;
  await sleep(idleMs);
  const idle = traced.length;
  const idleClient = traced.filter((row) => row.source !== 'lua').length;
  traced.length = 0;
  const startedAt = Date.now();
  const load = await oneByOne(messages);
  await deployment.tracker.waitAnswered(load.seqs, 30_000);
  await sleep(300);
  const busyMs = Date.now() - startedAt;
  monitor.disconnect();

  const clientRows = traced.filter((row) => row.source !== 'lua');
  const luaRows = traced.filter((row) => row.source === 'lua');
  const idleShare = busyMs / idleMs;
  const perMessage = (value: number) => Math.round((value / messages) * 10) / 10;
  const report = {
    messages,
    idleCommandsPerSecond: Math.round(idle / (idleMs / 1000)),
    idleRoundTripsPerSecond: Math.round(idleClient / (idleMs / 1000)),
    roundTripsPerMessage: perMessage(clientRows.length - idleClient * idleShare),
    commandsPerMessageIncludingLua: perMessage(traced.length - idle * idleShare),
    luaCommandsPerMessage: perMessage(luaRows.length),
    roundTripsByCommand: Object.fromEntries(count(clientRows.map((row) => row.command)).map(([command, n]) => [command, perMessage(n)])),
    luaCommandsByCommand: Object.fromEntries(count(luaRows.map((row) => row.command)).slice(0, 15).map(([command, n]) => [command, perMessage(n)])),
    connectionsUsed: new Set(clientRows.map((row) => row.source)).size,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await deployment.stop();
  await deleteKeysWithPrefix(redis, prefix);
  await database.drop();
  redis.disconnect();
  progress('done');
}
