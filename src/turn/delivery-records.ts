import type { Redis } from 'ioredis';
import type { TurnRecord } from '../store/turn-record.js';

const TTL_SECONDS = 24 * 60 * 60;

export interface PendingDelivery {
  record: TurnRecord;
  /** The reply to send (sanitized Markdown); empty for silent or cancelled turns. */
  reply: string;
  /** A notice (apology, refusal) sent as plain text rather than rendered Markdown. */
  plain: boolean;
  /** Unaddressed group lines this turn showed the model, consumed once it is stored. */
  consumedContext: number;
  delivered: boolean;
  /** The session is due for summarization once this turn is stored. */
  summarizeDue?: boolean;
  /** Ids of the chunks already out, so a retry sends only the rest. */
  deliveredIds: string[];
}

/**
 * A turn's finished result kept in Redis between "answer computed" and "flushed to PostgreSQL",
 * so a worker that dies in between is replaced by one that neither asks the model again nor sends twice.
 */
export class DeliveryRecords {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(turnId: string): string {
    return `${this.prefix}:turn-result:${turnId}`;
  }

  async get(turnId: string): Promise<PendingDelivery | undefined> {
    const raw = await this.redis.get(this.key(turnId));
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as PendingDelivery;
    const { run } = parsed.record;
    run.startedAt = new Date(run.startedAt);
    run.finishedAt = new Date(run.finishedAt);
    for (const message of parsed.record.messages) message.createdAt = new Date(message.createdAt);
    return parsed;
  }

  async save(turnId: string, pending: PendingDelivery): Promise<void> {
    await this.redis.set(this.key(turnId), JSON.stringify(pending), 'EX', TTL_SECONDS);
  }

  async clear(turnId: string): Promise<void> {
    await this.redis.del(this.key(turnId));
  }
}
