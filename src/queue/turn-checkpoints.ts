import type { Redis } from 'ioredis';

/** A day, like the delivery record: a turn that is not finished by then is abandoned long before. */
const TTL_SECONDS = 24 * 60 * 60;

/**
 * KEYS[1] the session's holders hash, KEYS[2] the turn's step list; ARGV: turnId, holder token, step JSON, ttl.
 * Only the current holder may add a step: a stalled holder whose turn was taken over is told `lost`.
 */
const APPEND = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 'lost' end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
return 'ok'
`;

type AppendScript = (holders: string, steps: string, turnId: string, holder: string, step: string, ttl: string) => Promise<'ok' | 'lost'>;

/**
 * The completed steps of each running turn (model answers that called tools, tool results), kept in the
 * session's hash slot beside its lease so that a retried or taken-over turn resumes after the last step
 * instead of running its tools again. Steps are opaque JSON here; the agent layer gives them meaning.
 */
export class TurnCheckpoints {
  readonly #append: AppendScript;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    if (!('appendTurnStep' in redis)) redis.defineCommand('appendTurnStep', { numberOfKeys: 2, lua: APPEND });
    const command = (redis as unknown as Record<string, AppendScript>).appendTurnStep!;
    this.#append = command.bind(redis);
  }

  private base(sessionKey: string): string {
    return `${this.prefix}:s:{${sessionKey}}`;
  }

  private stepsKey(sessionKey: string, turnId: string): string {
    return `${this.base(sessionKey)}:ckpt:${turnId}`;
  }

  /** `lost` when `holder` no longer holds the turn (nothing was written). */
  async append(sessionKey: string, turnId: string, holder: string, step: unknown): Promise<'ok' | 'lost'> {
    return this.#append(`${this.base(sessionKey)}:holders`, this.stepsKey(sessionKey, turnId), turnId, holder, JSON.stringify(step), String(TTL_SECONDS));
  }

  async load(sessionKey: string, turnId: string): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.stepsKey(sessionKey, turnId), 0, -1);
    return raw.map((step) => JSON.parse(step) as unknown);
  }

  async clear(sessionKey: string, turnId: string): Promise<void> {
    await this.redis.del(this.stepsKey(sessionKey, turnId), `${this.base(sessionKey)}:rounds:${turnId}`);
  }
}
