import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../core/inbound-message.js';
import type { KeySpace } from './key-space.js';
import type { RedisClient } from './redis-client.js';
import { QueueScripts } from './scripts.js';

const SEP = '\x1f';

/** One failed attempt of a dead letter's turn. */
export interface FailedAttempt {
  at: number;
  round: number;
  attempt: number;
  reason: string;
}

/** A turn abandoned after every round of attempts, kept for an operator (see lua/dead-letter.lua). */
export interface DeadLetter {
  /** `<shard>.<turn id>`: names the shard, so the letter is found without a scan. */
  id: string;
  sessionKey: string;
  messages: InboundMessage[];
  error: string;
  failedAt: number;
  attempt: number;
  round: number;
  attempts: FailedAttempt[];
}

/** The largest page of dead letters read at once. */
const MAX_PAGE = 500;

/**
 * The dead letters of every shard: listed newest first (a page at a time, at most MAX_PAGE), retried (their
 * messages run next in their session, once) or discarded. Written by the worker through SessionQueue.deadLetter.
 */
export class DeadLetters {
  readonly #scripts: QueueScripts;

  constructor(
    private readonly redis: RedisClient,
    readonly keys: KeySpace,
  ) {
    this.#scripts = new QueueScripts(redis);
  }

  async count(): Promise<number> {
    const counts = await Promise.all(this.keys.shards().map((shard) => this.redis.zcard(shard.deadLetters)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Newest first, `start`..`end` inclusive over every shard. */
  async list(start: number, end: number): Promise<DeadLetter[]> {
    const last = Math.min(end, start + MAX_PAGE - 1);
    const perShard = await Promise.all(
      this.keys.shards().map(async (shard) => {
        const flat = await this.redis.zrevrange(shard.deadLetters, 0, last, 'WITHSCORES');
        const ids: Array<{ id: string; at: number }> = [];
        for (let index = 0; index < flat.length; index += 2) ids.push({ id: `${shard.shard}.${flat[index]!}`, at: Number(flat[index + 1]) });
        return ids;
      }),
    );
    const page = perShard
      .flat()
      .sort((a, b) => b.at - a.at)
      .slice(start, last + 1);
    const letters = await Promise.all(page.map(({ id }) => this.get(id)));
    return letters.filter((letter): letter is DeadLetter => letter !== undefined);
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const located = this.locate(id);
    if (!located) return undefined;
    const fields = await this.redis.hgetall(located.shard.deadLetter(located.turnId));
    if (!fields.session) return undefined;
    return {
      id,
      sessionKey: fields.session,
      messages: parseMessages(fields.body ?? '[]'),
      error: fields.error ?? '',
      failedAt: Number(fields.at ?? 0),
      attempt: Number(fields.attempt ?? 1),
      round: Number(fields.round ?? 0),
      attempts: (fields.reasons ?? '')
        .split('\x1e')
        .filter(Boolean)
        .map((raw) => {
          const [at, round, attempt, ...reason] = raw.split(SEP);
          return { at: Number(at), round: Number(round), attempt: Number(attempt), reason: reason.join(SEP) };
        }),
    };
  }

  /** Its messages go to the head of their session as one turn, to run next and once. */
  async retry(id: string): Promise<'retried' | 'gone'> {
    const located = this.locate(id);
    if (!located) return 'gone';
    const sessionKey = await this.redis.hget(located.shard.deadLetter(located.turnId), 'session');
    if (!sessionKey) return 'gone';
    const keys = this.keys.session(sessionKey);
    return this.#scripts.run(
      'dead-letter-retry',
      [keys.deadLetters, keys.deadLetter(located.turnId), keys.pending, keys.meta, keys.sched, keys.wake],
      [located.turnId, randomUUID(), sessionKey],
    );
  }

  async discard(id: string): Promise<'discarded' | 'gone'> {
    const located = this.locate(id);
    if (!located) return 'gone';
    return this.#scripts.run('dead-letter-discard', [located.shard.deadLetters, located.shard.deadLetter(located.turnId)], [located.turnId]);
  }

  /** The dead letter id of a turn of `sessionKey`. */
  idOf(sessionKey: string, turnId: string): string {
    return `${this.keys.shardOf(sessionKey)}.${turnId}`;
  }

  private locate(id: string) {
    const dot = id.indexOf('.');
    const shard = Number(id.slice(0, dot));
    const turnId = id.slice(dot + 1);
    if (dot < 1 || !Number.isInteger(shard) || shard < 0 || shard >= this.keys.shardCount || !turnId) return undefined;
    return { shard: this.keys.shard(shard), turnId };
  }
}

function parseMessages(body: string): InboundMessage[] {
  try {
    return JSON.parse(body) as InboundMessage[];
  } catch {
    return [];
  }
}
