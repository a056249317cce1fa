import type { ContextLine, GroupContextPort } from '../core/turn-ports.js';
import type { KeySpace } from './key-space.js';
import { LuaScripts } from './lua-scripts.js';
import type { RedisClient } from './redis-client.js';

export type { ContextLine } from '../core/turn-ports.js';

const KEEP = 50;
/** A claim outlives any retry round of its turn (about 40 minutes) and a parked approval. */
const CLAIM_TTL_SECONDS = 24 * 3600;
const SCRIPTS = { 'claim-context': 2 } as const;

/**
 * Group messages nobody addressed to the bot: the last 50 per group session, handed to the model as
 * "messages since your last reply". A turn takes them when it starts (a turn beside it sees only later ones) and
 * lets them go once it is stored; its retries and takeovers see the same lines.
 */
export class GroupContext implements GroupContextPort {
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  private key(sessionKey: string): string {
    return this.keys.session(sessionKey).groupContext;
  }

  async remember(sessionKey: string, line: ContextLine): Promise<void> {
    await this.redis.multi().lpush(this.key(sessionKey), JSON.stringify(line)).ltrim(this.key(sessionKey), 0, KEEP - 1).exec();
  }

  /** The lines this turn shows the model, oldest first (taken on its first call, the same ones on a retry). */
  async claim(sessionKey: string, turnId: string): Promise<ContextLine[]> {
    const keys = this.keys.session(sessionKey);
    const raw = await this.#scripts.run<string[]>('claim-context', [keys.groupContext, keys.groupContextClaim(turnId)], [CLAIM_TTL_SECONDS]);
    return raw.reverse().map((line) => JSON.parse(line) as ContextLine);
  }

  /** `/new`: the lines waiting for the next turn belong to the old conversation. */
  async forget(sessionKey: string): Promise<void> {
    await this.redis.del(this.key(sessionKey));
  }

  /** The turn is stored: the lines it showed are done with. */
  async release(sessionKey: string, turnId: string): Promise<void> {
    await this.redis.del(this.keys.session(sessionKey).groupContextClaim(turnId));
  }
}
