import { createHash } from 'node:crypto';
import type { KeySpace } from '../redis/key-space.js';
import { LuaScripts } from '../redis/lua-scripts.js';
import type { RedisClient } from '../redis/redis-client.js';

/** pending → one of the others, exactly once. */
export type ApprovalStatus = 'pending' | 'allowed-once' | 'allowed-session' | 'denied' | 'timed-out' | 'stopped';

export interface ApprovalRecord {
  id: string;
  sessionKey: string;
  turnId: string;
  toolCallId: string;
  toolName: string;
  argumentsPreview: string;
  /** The user whose message started the turn: the only one who may answer. */
  requesterId: string;
  /** Where the prompt was posted (ConversationRef JSON, opaque here). */
  conversation: string;
  status: ApprovalStatus;
  deadlineMs: number;
  createdAtMs: number;
  decidedAtMs?: number;
  /** The platform message carrying the buttons, once posted. */
  promptMessageId?: string;
  decidedBy?: string;
  /** The line the prompt shows once settled ("Denied by Ana."), stored with the decision. */
  outcome?: string;
}

/** What deciding a request did: `promptMessageId` is the prompt to settle, when it was posted before the decision. */
export type Decided = { kind: 'ok'; promptMessageId?: string } | { kind: 'settled'; status: ApprovalStatus } | { kind: 'missing' };

/** Kept a day past the deadline, so a late click is told it is over, not that it is unknown. */
const KEEP_AFTER_DEADLINE_SECONDS = 24 * 60 * 60;
/** Requests the pending index holds at most; beyond it the oldest leave the index (their records stay). */
const PENDING_INDEX_LIMIT = 10_000;
/** "Allow for this session" lasts until /new, at most this long. */
const SESSION_ALLOW_TTL_SECONDS = 30 * 24 * 60 * 60;

const SCRIPTS = { 'approval-open': 1, 'approval-decide': 1, 'approval-prompt-set': 1 } as const;

/** The id a button carries: short (Telegram allows 64 bytes of callback data), derived from the turn and the call. */
export function approvalIdOf(turnId: string, toolCallId: string): string {
  return createHash('sha256').update(`${turnId}\n${toolCallId}`).digest('base64url').slice(0, 22);
}

/**
 * Approval requests of tool calls, in Redis: the truth any worker (resuming the parked turn) and any gateway
 * (receiving the click) share. Keys (see KeySpace): the request by its id alone (a button carries nothing else;
 * a hash, see ApprovalRecord), the ids a turn asked about and the tools allowed for the rest of the session (in
 * the session's slot), and a sorted set of the ids still pending, by creation time, for the operator console.
 * Each is written on its own (they live in different slots); every step is idempotent, so a crash between two
 * of them is repaired by the resumed turn opening its request again.
 */
export class ApprovalRecords {
  readonly #scripts: LuaScripts<keyof typeof SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly pendingLimit = PENDING_INDEX_LIMIT,
  ) {
    this.#scripts = new LuaScripts(redis, SCRIPTS);
  }

  private key(id: string): string {
    return this.keys.approval(id);
  }

  private turnKey(sessionKey: string, turnId: string): string {
    return this.keys.session(sessionKey).approvals(turnId);
  }

  private pendingKey(): string {
    return this.keys.approvalsPending;
  }

  private sessionAllowKey(sessionKey: string): string {
    return this.keys.session(sessionKey).approvedTools;
  }

  /** Creates the request unless it exists (a resumed turn finds the one it made before). */
  async open(record: Omit<ApprovalRecord, 'status' | 'promptMessageId' | 'decidedBy' | 'decidedAtMs' | 'createdAtMs'>, nowMs: number): Promise<'created' | 'exists'> {
    const fields = Object.entries({ ...record, status: 'pending', deadlineMs: String(record.deadlineMs), createdAtMs: String(nowMs) }).flat();
    const ttl = Math.max(60, Math.ceil((record.deadlineMs - nowMs) / 1000) + KEEP_AFTER_DEADLINE_SECONDS);
    const opened = await this.#scripts.run<'created' | 'exists'>('approval-open', [this.key(record.id)], [...fields, ttl]);
    const turnKey = this.turnKey(record.sessionKey, record.turnId);
    await this.redis.multi().sadd(turnKey, record.id).expire(turnKey, ttl).exec();
    if (opened === 'created') {
      await this.redis
        .multi()
        .zadd(this.pendingKey(), nowMs, record.id)
        .zremrangebyrank(this.pendingKey(), 0, -(this.pendingLimit + 1))
        .exec();
    }
    return opened;
  }

  /**
   * Pending requests, oldest first, for the operator console: ids from the index, each checked against its
   * record (an index entry whose request was settled or expired is dropped on the way).
   */
  async pending(limit: number): Promise<{ records: ApprovalRecord[]; total: number }> {
    const key = this.pendingKey();
    const records: ApprovalRecord[] = [];
    let start = 0;
    // a few settled leftovers are skipped, not walked through without end
    for (let round = 0; round < 4 && records.length < limit; round += 1) {
      const ids = await this.redis.zrange(key, start, String(start + limit - 1));
      if (ids.length === 0) break;
      // sent together on the one connection: one round trip's wait
      const found = await Promise.all(ids.map((id) => this.get(id)));
      const stale: string[] = [];
      found.forEach((record, index) => {
        if (record?.status === 'pending') records.push(record);
        else stale.push(ids[index]!);
      });
      if (stale.length > 0) await this.redis.zrem(key, ...stale);
      start += ids.length - stale.length;
      if (ids.length < limit) break;
    }
    return { records: records.slice(0, limit), total: await this.redis.zcard(key) };
  }

  /** How many requests the pending index holds (settled leftovers included until a listing drops them). */
  pendingCount(): Promise<number> {
    return this.redis.zcard(this.pendingKey());
  }

  /** Every request a turn made (a turn may ask about several calls). */
  async ofTurn(sessionKey: string, turnId: string): Promise<ApprovalRecord[]> {
    const ids = await this.redis.smembers(this.turnKey(sessionKey, turnId));
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((record): record is ApprovalRecord => record !== undefined);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const raw = await this.redis.hgetall(this.key(id));
    if (!raw.id) return undefined;
    return {
      id: raw.id,
      sessionKey: raw.sessionKey!,
      turnId: raw.turnId!,
      toolCallId: raw.toolCallId!,
      toolName: raw.toolName!,
      argumentsPreview: raw.argumentsPreview ?? '',
      requesterId: raw.requesterId!,
      conversation: raw.conversation!,
      status: raw.status as ApprovalStatus,
      deadlineMs: Number(raw.deadlineMs),
      createdAtMs: Number(raw.createdAtMs),
      ...(raw.decidedAtMs ? { decidedAtMs: Number(raw.decidedAtMs) } : {}),
      ...(raw.promptMessageId ? { promptMessageId: raw.promptMessageId } : {}),
      ...(raw.decidedBy ? { decidedBy: raw.decidedBy } : {}),
      ...(raw.outcome ? { outcome: raw.outcome } : {}),
    };
  }

  /**
   * Stores the prompt's message id. A request decided while its prompt was being posted (the click came before
   * this) is returned with its outcome: its decider found no prompt to settle, so the poster settles it.
   */
  async setPromptMessage(id: string, messageId: string): Promise<{ status: ApprovalStatus | 'missing'; outcome?: string }> {
    const [status, outcome] = await this.#scripts.run<[ApprovalStatus | 'missing', string]>('approval-prompt-set', [this.key(id)], [messageId]);
    return outcome ? { status, outcome } : { status };
  }

  /**
   * Settles a pending request, storing `outcome` (the line its prompt shows); a second answer learns the first
   * one's status. The prompt to settle comes back read in the same step as the decision (see approval-decide.lua).
   */
  async decide(id: string, status: Exclude<ApprovalStatus, 'pending'>, decidedBy: string, outcome: string, nowMs = Date.now()): Promise<Decided> {
    const [kind, detail] = await this.#scripts.run<[string, string?]>('approval-decide', [this.key(id)], [status, decidedBy, nowMs, outcome]);
    if (kind === 'ok') {
      await this.redis.zrem(this.pendingKey(), id);
      return detail ? { kind: 'ok', promptMessageId: detail } : { kind: 'ok' };
    }
    if (kind === 'settled') return { kind: 'settled', status: detail as ApprovalStatus };
    return { kind: 'missing' };
  }

  async allowForSession(sessionKey: string, toolName: string): Promise<void> {
    const key = this.sessionAllowKey(sessionKey);
    await this.redis.multi().sadd(key, toolName).expire(key, SESSION_ALLOW_TTL_SECONDS).exec();
  }

  async allowedForSession(sessionKey: string, toolName: string): Promise<boolean> {
    return (await this.redis.sismember(this.sessionAllowKey(sessionKey), toolName)) === 1;
  }

  /** /new: what was allowed "for this session" is asked again. */
  async forgetSession(sessionKey: string): Promise<void> {
    await this.redis.del(this.sessionAllowKey(sessionKey));
  }
}
