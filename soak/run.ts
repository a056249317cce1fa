import { startFeishuDouble } from '../test/doubles/feishu-double.js';
import { reply } from '../test/doubles/model-script.js';
import { startOpenAiDouble } from '../test/doubles/openai-double.js';
import { startSlackDouble } from '../test/doubles/slack-double.js';
import { startTelegramDouble } from '../test/doubles/telegram-double.js';
import { allPlatformsEnv } from '../test/doubles/platform-env.js';
import { uniqueName } from '../test/support/services.js';
import { inDoubtCounts, runChaos, takeoverTimes } from './chaos.js';
import { feishuChats, slackChats, telegramChats, WEBHOOK_SECRET } from './chats.js';
import { faultReport } from './fault-report.js';
import { judge, runChats } from './load.js';
import { startPostgresMode } from './postgres-faults.js';
import { startRedisMode } from './redis-faults.js';
import { SupervisedService } from './service.js';
import { soakSettings } from './settings.js';
import { startStallMode } from './stall-faults.js';

/**
 * The chaos soak (issue 22): one gateway and two workers on one Redis and one PostgreSQL, a few hundred chats on
 * Telegram, Slack and Feishu each writing one message at a time (webhooks retried as the platforms retry them),
 * while workers and the gateway are killed with SIGKILL and Redis is restarted. It counts, from what the platform
 * doubles saw, the messages lost, answered twice and answered out of order, and how long a dead worker's turns
 * waited for a takeover. Prints one JSON line; exits 1 when anything was lost, doubled or reordered, or a process
 * crashed (exited without being killed; the soak restarts it as a supervisor would).
 * Issue 53's modes add a Redis Cluster with failovers and slot migrations (SOAK_REDIS=cluster), PostgreSQL
 * restarts and killed backends (SOAK_POSTGRES_FAULTS, SOAK_PGBOUNCER) and stalling networks (SOAK_STALLS).
 */
const settings = soakSettings();
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

const [redis, database, telegram, slack, feishu, openai] = await Promise.all([
  startRedisMode(settings),
  startPostgresMode(settings),
  startTelegramDouble(),
  startSlackDouble(),
  startFeishuDouble(),
  startOpenAiDouble(),
]);
const [low, high] = settings.modelLatencyMs;
openai.script.respondWith((_request, text) => reply.text(`You said: ${text}`, { latencyMs: Math.round(low + Math.random() * (high - low)) }));

const env = {
  ...allPlatformsEnv({ telegram, slack, feishu }, WEBHOOK_SECRET),
  OPENAI_API_KEY: 'sk-soak',
  OPENAI_BASE_URL: openai.baseUrl,
  ...database.env,
  ...redis.env,
  QUEUE_PREFIX: uniqueName('soak'),
  DATA_DIR: `/tmp/${uniqueName('soak-data')}`,
};

const stalls = settings.stalls ? await startStallMode(settings, { workers: ['worker-1', 'worker-2'], gateway: 'gateway' }, { redis: redis.address, postgres: database.address }) : undefined;
const envOf = (name: string, role: string) => ({ ...(stalls ? stalls.envFor(name, env) : env), ROLE: role });
const mode = { redis: settings.redis, postgresFaults: settings.postgresFaults, pgbouncer: settings.pgbouncer, stalls: settings.stalls };
log(`starting 1 gateway (ROLE=${settings.gatewayRole}) + 2 workers; ${settings.telegramChats} Telegram, ${settings.slackChats} Slack, ${settings.feishuChats} Feishu chats for ${settings.durationS} s; ${JSON.stringify(mode)}`);
const gateway = await SupervisedService.start('gateway', envOf('gateway', settings.gatewayRole));
const workers = [await SupervisedService.start('worker-1', envOf('worker-1', 'worker')), await SupervisedService.start('worker-2', envOf('worker-2', 'worker'))];
const chats = [...telegramChats(telegram, settings.telegramChats), ...slackChats(slack, settings.slackChats), ...feishuChats(feishu, settings.feishuChats)];

const startedAt = Date.now();
const stopAt = startedAt + settings.durationS * 1000;
const progress = setInterval(() => log(`${((Date.now() - startedAt) / 1000).toFixed(0)} s`), 30_000);
const [messages, faults] = await Promise.all([
  runChats({ chats, gatewayUrl: gateway.url, stopAt, answerTimeoutMs: settings.answerTimeoutS * 1000, thinkMs: [100, 1_000] }),
  runChaos({ settings, workers, gateway, modeFaults: [...redis.faults, ...database.faults, ...(stalls?.faults ?? [])], startedAt, stopAt, log }),
]);
clearInterval(progress);
// a would-be late duplicate shows itself
await new Promise((resolve) => setTimeout(resolve, Math.min(settings.drainS, 10) * 1000));

const verdict = judge(chats, messages);
const takeovers = takeoverTimes(faults, [gateway, ...workers]);
const detected = takeovers.filter((ms): ms is number => ms !== undefined);
const answerMs = messages.filter((message) => message.answeredAt !== undefined && message.acceptedAt !== undefined).map((message) => message.answeredAt! - message.acceptedAt!);
const summary = {
  mode,
  durationS: settings.durationS,
  chats: chats.length,
  ...verdict,
  faults: Object.fromEntries([...new Set(faults.map((fault) => fault.what))].map((what) => [what, faults.filter((fault) => fault.what === what).length])),
  takeoverMs: { count: detected.length, notDetected: takeovers.length - detected.length, p50: percentile(detected, 50), max: percentile(detected, 100) },
  // parts a killed worker (or an ambiguous failure) left in doubt, by how the takeover settled them
  inDoubt: inDoubtCounts([gateway, ...workers]),
  answerMs: { p50: percentile(answerMs, 50), p99: percentile(answerMs, 99), max: percentile(answerMs, 100) },
  webhookRetries: messages.reduce((sum, message) => sum + message.attempts - 1, 0),
  // the longest waits, with when they were accepted (seconds into the run), to set beside the faults
  slowest: messages
    .filter((message) => message.answeredAt !== undefined && message.acceptedAt !== undefined)
    .sort((a, b) => b.answeredAt! - b.acceptedAt! - (a.answeredAt! - a.acceptedAt!))
    .slice(0, 10)
    .map((message) => ({ chat: message.chat, seq: message.seq, acceptedAtS: Math.round((message.acceptedAt! - startedAt) / 1000), waitedMs: message.answeredAt! - message.acceptedAt! })),
  // per kind of fault: turns taken over, parts in doubt and how each was settled, the longest wait, the errors logged
  byFault: faultReport(faults, [gateway, ...workers].flatMap((service) => service.lines), messages, {
    redis: [...redis.ports, ...(stalls?.ports.redis ?? [])],
    postgres: [...database.ports, ...(stalls?.ports.postgres ?? [])],
  }),
  // a process that exited without the soak asking (restarted a second later): a crash is a defect of its own
  unexpectedExits: [gateway, ...workers].flatMap((service) =>
    service.unexpectedExits.map((exit) => ({
      service: service.name,
      atS: Math.round((exit.at - startedAt) / 1000),
      code: exit.code,
      signal: exit.signal,
      lastLines: exit.lastLines.map((line) => line.slice(0, 400)),
    })),
  ),
  faultTimesS: faults.map((fault) => `${Math.round((fault.at - startedAt) / 1000)}-${Math.round((fault.endedAt - startedAt) / 1000)} ${fault.what}: ${fault.target}`),
};

await Promise.all([gateway.stop(), ...workers.map((worker) => worker.stop())]);
await Promise.all([telegram.close(), slack.close(), feishu.close(), openai.close()]);
await stalls?.stop();
await database.stop();
await redis.stop();
console.log(JSON.stringify(summary));
process.exit(verdict.lost + verdict.duplicated + verdict.outOfOrder + verdict.neverAccepted + summary.unexpectedExits.length > 0 ? 1 : 0);
