/** The soak's knobs (environment), with the defaults of the long run (issue 22: 8 minutes, kills every ~25 s). */
export interface SoakSettings {
  durationS: number;
  telegramChats: number;
  slackChats: number;
  feishuChats: number;
  /** A worker is killed with SIGKILL about this often (±20 %), alternating between the two; a supervisor restarts it. */
  workerKillS: number;
  /** The gateway is killed with SIGKILL about this often and restarted on the same port. */
  gatewayKillS: number;
  /** The gateway process's ROLE: `all` makes it run turns too, so its kills take turns down with it as well. */
  gatewayRole: 'gateway' | 'all';
  /** Redis is stopped once with SIGTERM and once with SIGKILL (AOF, fsync always), each down a few seconds. */
  redisRestarts: boolean;
  /** The model's latency per answer is drawn from this range (ms). */
  modelLatencyMs: [number, number];
  /** A message not answered this long after it was accepted counts as lost. */
  answerTimeoutS: number;
  /** After the load stops: how long outstanding answers are waited for. */
  drainS: number;
}

function number(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return value;
}

export function soakSettings(): SoakSettings {
  return {
    durationS: number('SOAK_DURATION_S', 480),
    telegramChats: number('SOAK_TELEGRAM_CHATS', 200),
    slackChats: number('SOAK_SLACK_CHATS', 50),
    feishuChats: number('SOAK_FEISHU_CHATS', 50),
    workerKillS: number('SOAK_WORKER_KILL_S', 25),
    gatewayKillS: number('SOAK_GATEWAY_KILL_S', 90),
    gatewayRole: gatewayRole(process.env.SOAK_GATEWAY_ROLE),
    redisRestarts: (process.env.SOAK_REDIS_RESTARTS ?? 'true') !== 'false',
    modelLatencyMs: [number('SOAK_MODEL_LATENCY_MIN_MS', 200), number('SOAK_MODEL_LATENCY_MAX_MS', 2500)],
    answerTimeoutS: number('SOAK_ANSWER_TIMEOUT_S', 120),
    drainS: number('SOAK_DRAIN_S', 90),
  };
}

function gatewayRole(raw: string | undefined): 'gateway' | 'all' {
  if (raw === undefined || raw === '' || raw === 'gateway') return 'gateway';
  if (raw === 'all') return 'all';
  throw new Error(`SOAK_GATEWAY_ROLE must be gateway or all, got ${raw}`);
}
