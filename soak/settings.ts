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
  /**
   * `single`: one redis-server. `cluster`: three masters with a replica each, the service on REDIS_CLUSTER=true;
   * a master is SIGTERMed and restarted, one SIGKILLed so that its replica is promoted (and restarted as a
   * replica), a `CLUSTER FAILOVER` is run and the busiest slot is migrated twice (soak/redis-faults.ts).
   */
  redis: 'single' | 'cluster';
  /** Slot migrations of the busiest slot in cluster mode. */
  slotMigrations: number;
  /** A PostgreSQL of the soak's own, restarted (fast and immediate) and its backends terminated (soak/postgres-faults.ts). */
  postgresFaults: boolean;
  /** The service reaches PostgreSQL through PgBouncer in transaction mode. */
  pgbouncer: boolean;
  /** Each process reaches Redis and PostgreSQL through a proxy that stalls and drops connections (soak/stall-faults.ts). */
  stalls: boolean;
  /** A stall or drop of some kind about this often (each of the four kinds in turn). */
  stallS: number;
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
    redis: oneOf('SOAK_REDIS', ['single', 'cluster'] as const),
    slotMigrations: number('SOAK_SLOT_MIGRATIONS', 2),
    postgresFaults: flag('SOAK_POSTGRES_FAULTS'),
    pgbouncer: flag('SOAK_PGBOUNCER'),
    stalls: flag('SOAK_STALLS'),
    stallS: number('SOAK_STALL_S', 15),
    modelLatencyMs: [number('SOAK_MODEL_LATENCY_MIN_MS', 200), number('SOAK_MODEL_LATENCY_MAX_MS', 2500)],
    answerTimeoutS: number('SOAK_ANSWER_TIMEOUT_S', 120),
    drainS: number('SOAK_DRAIN_S', 90),
  };
}

function flag(name: string): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got ${raw}`);
}

/** The first of `values` unless the variable names another of them. */
function oneOf<T extends string>(name: string, values: readonly T[]): T {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return values[0]!;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new Error(`${name} must be ${values.join(' or ')}, got ${raw}`);
}

function gatewayRole(raw: string | undefined): 'gateway' | 'all' {
  if (raw === undefined || raw === '' || raw === 'gateway') return 'gateway';
  if (raw === 'all') return 'all';
  throw new Error(`SOAK_GATEWAY_ROLE must be gateway or all, got ${raw}`);
}
