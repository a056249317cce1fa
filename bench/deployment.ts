import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpenAiDouble, type OpenAiDouble } from '../test/doubles/openai-double.js';
import { startTelegramDouble, type TelegramDouble } from '../test/doubles/telegram-double.js';
import { progress } from './progress.js';
import { startServiceChild, type ServiceChildProcess } from './service-process.js';
import { MessageTracker, tokenEchoResponder } from './tracker.js';
import { WebhookClient } from './webhook-client.js';

export const WEBHOOK_SECRET = 'bench-webhook-secret';

export interface ServiceChild {
  /** `all`, `gateway`, `worker`, or `peer` (bench/peers/). */
  role: string;
  process: ServiceChildProcess;
  pid: number;
}

/** One running shape of the service (ROLE=all, or a gateway and workers) with its own doubles and queue prefix. */
export interface Deployment {
  name: string;
  prefix: string;
  telegram: TelegramDouble;
  openai: OpenAiDouble;
  tracker: MessageTracker;
  client: WebhookClient;
  children: ServiceChild[];
  /** Where webhooks go. */
  gatewayUrl: string;
  /** Every child's base URL (metrics are per process). */
  urls: string[];
  stop(): Promise<void>;
}

export async function startDeployment(options: {
  name: string;
  roles: Array<'all' | 'gateway' | 'worker'>;
  prefix: string;
  databaseUrl: string;
  redisUrl: string;
  /** WORKER_CONCURRENCY; undefined: the service's default, what users get. */
  workerConcurrency?: number;
  /** Extra environment for every child, e.g. NODE_OPTIONS for --cpu-prof. */
  extraEnv?: Record<string, string>;
}): Promise<Deployment> {
  const [telegram, openai] = await Promise.all([startTelegramDouble(), startOpenAiDouble({ responder: tokenEchoResponder })]);
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${options.name}-`));
  const env = (role: string): Record<string, string> => ({
    ROLE: role,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    TELEGRAM_MODE: 'webhook',
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: openai.baseUrl,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: options.prefix,
    DATA_DIR: dataDir,
    ...(options.workerConcurrency === undefined ? {} : { WORKER_CONCURRENCY: String(options.workerConcurrency) }),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...serviceEnvironment(),
    ...options.extraEnv,
  });
  const children: ServiceChild[] = [];
  const stopChildren = async () => {
    await Promise.all(children.map(({ process: child }) => child.stop()));
  };
  try {
    // one at a time: the first applies the migrations, the gateway is up before workers take jobs
    for (const role of options.roles) {
      const started = await startServiceChild(env(role));
      children.push({ role, process: started, pid: started.pid });
    }
  } catch (error) {
    await stopChildren();
    await Promise.all([telegram.close(), openai.close()]);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const gateway = children.find((child) => child.role !== 'worker')!;
  const client = new WebhookClient(gateway.process.url, WEBHOOK_SECRET);
  progress(`${options.name}: started ${children.map((child) => `${child.role}(pid ${child.pid})`).join(', ')}, prefix ${options.prefix}`);
  return {
    name: options.name,
    prefix: options.prefix,
    telegram,
    openai,
    tracker: new MessageTracker(telegram, openai),
    client,
    children,
    gatewayUrl: gateway.process.url,
    urls: children.map((child) => child.process.url),
    stop: async () => {
      client.close();
      await stopChildren();
      for (const child of children) {
        const output = child.process
          .output()
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.startsWith('received SIGTERM'))
          .join('\n');
        if (output) progress(`${options.name} ${child.role} (pid ${child.pid}) logged:\n${output.split('\n').slice(-20).join('\n')}`);
      }
      await Promise.all([telegram.close(), openai.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `BENCH_SERVICE_ENV="NAME=value NAME=value"`: settings for every service child (not the peer), to compare one
 * setting's figures with and without it in runs alike in everything else (e.g. `TYPING_DELAY_MS=0`).
 */
export function serviceEnvironment(): Record<string, string> {
  const raw = process.env.BENCH_SERVICE_ENV ?? '';
  const entries = raw.split(/\s+/).filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_SERVICE_ENV: expected NAME=value, got "${pair}"`);
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
  return Object.fromEntries(entries);
}
