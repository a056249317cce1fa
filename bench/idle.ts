import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFeishuDouble } from '../test/doubles/feishu-double.js';
import { startOpenAiDouble } from '../test/doubles/openai-double.js';
import { startSlackDouble } from '../test/doubles/slack-double.js';
import { startTelegramDouble } from '../test/doubles/telegram-double.js';
import { allPlatformsEnv } from '../test/doubles/platform-env.js';
import { serviceEnvironment, WEBHOOK_SECRET } from './deployment.js';
import type { Harness } from './harness.js';
import { percentile, round } from './percentiles.js';
import { commandOf, descendantsOf, rssMb } from './process-stats.js';
import { progress, sleep } from './progress.js';
import { scrape, sumOf } from './prometheus.js';
import { migrate, startServiceChild, type ServiceChildProcess } from './service-process.js';

export interface ProcessMemory {
  pid: number;
  command: string;
  rssMb: number;
}

export interface IdleReading {
  /** VmRSS of the service process after idling. */
  rssMb: number;
  /** The service process and every process below it (an embedded install's redis-server). */
  processes: ProcessMemory[];
  /** Every process of `processes` summed. */
  treeRssMb: number;
  heapUsedMb: number | null;
  /** Spawn to the first /readyz 200 of this start. */
  readyMs: number;
}

/** Doubles of the three platforms and the model, and the environment that turns every channel on in webhook/HTTP mode. */
async function allChannels() {
  const [telegram, slack, feishu, openai] = await Promise.all([startTelegramDouble(), startSlackDouble(), startFeishuDouble(), startOpenAiDouble()]);
  return {
    env: {
      ...allPlatformsEnv({ telegram, slack, feishu }, WEBHOOK_SECRET),
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: openai.baseUrl,
    },
    close: () => Promise.all([telegram.close(), slack.close(), feishu.close(), openai.close()]).then(() => undefined),
  };
}

/** Waits `seconds`, then reads the memory of the process tree (and the heap from /metrics, after the RSS). */
async function readIdle(started: ServiceChildProcess, seconds: number): Promise<IdleReading> {
  await sleep(seconds * 1000);
  const processes = [started.pid, ...descendantsOf(started.pid)].map((pid) => ({ pid, command: pid === started.pid ? 'node' : commandOf(pid), rssMb: round(rssMb(pid), 1) }));
  const heapUsedMb = await scrape(started.url)
    .then((samples) => round(sumOf(samples, 'nodejs_heap_size_used_bytes') / 2 ** 20, 1))
    .catch(() => null);
  return {
    rssMb: processes[0]!.rssMb,
    processes,
    treeRssMb: round(processes.reduce((sum, each) => sum + each.rssMb, 0), 1),
    heapUsedMb,
    readyMs: round(started.readyMs, 0),
  };
}

/** Stops a service and makes sure the processes it started (an embedded redis-server) went with it. */
async function stopTree(started: ServiceChildProcess, children: number[]): Promise<void> {
  await started.stop(30_000);
  for (const pid of children) {
    if (commandOf(pid) === '') continue;
    progress(`process ${pid} (${commandOf(pid)}) outlived the service that started it: killing it`);
    process.kill(pid, 'SIGKILL');
  }
}

/**
 * The service idling with an external PostgreSQL and Redis and all three channels on (`idleRssMb`), and `startupMs`:
 * spawn to /readyz 200 with the migrations already applied, median of `runs` starts of the same configuration.
 */
export async function runIdleAndStartup(harness: Harness, databaseUrl: string, redisUrl: string, which: { idle: boolean; startup: boolean }) {
  const { settings } = harness;
  const channels = await allChannels();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  const env = { ...channels.env, ROLE: 'all', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: harness.prefixFor('idle'), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...serviceEnvironment() };
  let idle: IdleReading | undefined;
  const startupSamplesMs: number[] = [];
  try {
    await migrate(env);
    if (which.idle) {
      const started = await startServiceChild(env, { readyPath: '/readyz', pollMs: 10 });
      try {
        idle = await readIdle(started, settings.idleSeconds);
      } finally {
        await stopTree(started, descendantsOf(started.pid));
      }
      progress(`idle (external PostgreSQL and Redis, Telegram + Slack + Feishu): VmRSS ${idle.rssMb} MB after ${settings.idleSeconds} s, heap used ${idle.heapUsedMb} MB, ready in ${idle.readyMs} ms`);
    }
    if (which.startup) {
      for (let run = 0; run < settings.startupRuns; run++) {
        const started = await startServiceChild(env, { readyPath: '/readyz', pollMs: 10 });
        startupSamplesMs.push(round(started.readyMs, 0));
        await stopTree(started, descendantsOf(started.pid));
      }
      progress(`start-up (spawn to /readyz 200, migrations applied): ${startupSamplesMs.join(', ')} ms`);
    }
  } finally {
    await channels.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    idle,
    startup: startupSamplesMs.length > 0 ? { medianMs: percentile(startupSamplesMs, 50), samplesMs: startupSamplesMs } : undefined,
  };
}

/**
 * `idleRssEmbeddedMb`: the default install as a new user starts it (`npm start` with no DATABASE_URL and no
 * REDIS_URL: PGlite under DATA_DIR and a redis-server child; one Telegram bot, long polling the double), idling.
 * Both processes are counted. This first start also applies the migrations to the new embedded database.
 */
export async function runEmbedded(harness: Harness): Promise<IdleReading> {
  const [telegram, openai] = await Promise.all([startTelegramDouble(), startOpenAiDouble()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
  try {
    const started = await startServiceChild(
      { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot, OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: openai.baseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...serviceEnvironment() },
      { readyPath: '/readyz', pollMs: 20, timeoutMs: 180_000 },
    );
    let reading: IdleReading;
    try {
      reading = await readIdle(started, harness.settings.idleSeconds);
    } finally {
      await stopTree(started, descendantsOf(started.pid));
    }
    progress(
      `embedded default install: ${reading.processes.map((each) => `${each.command} ${each.rssMb} MB`).join(' + ')} = ${reading.treeRssMb} MB after ${harness.settings.idleSeconds} s idle; ` +
        `first start (migrations included) ready in ${reading.readyMs} ms`,
    );
    return reading;
  } finally {
    await Promise.all([telegram.close(), openai.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
