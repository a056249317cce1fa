import { and, asc, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ChannelName } from '../core/inbound-message.js';
import type { StoreDatabase } from './database.js';
import { approvedSenders, pairingRequests, type PairingRequestRow } from './schema/index.js';

export interface NewPairingRequest {
  channel: ChannelName;
  accountId: string;
  userId: string;
  userName: string | undefined;
}

export type PairingRequestResult =
  | { kind: 'issued' | 'pending'; request: PairingRequestRow }
  | { kind: 'full'; pending: number };

export interface PairingLimits {
  now: Date;
  ttlMs: number;
  maxPendingPerChannel: number;
  /** A fresh candidate code; called again when one is already taken. */
  newCode: () => string;
}

const pending = (now: Date) => and(isNull(pairingRequests.approvedAt), gt(pairingRequests.expiresAt, now));

/**
 * The user's pending request, or a new one when the channel has room. Under a transaction-scoped
 * advisory lock per channel, so processes racing for the last free slot cannot exceed the limit.
 */
export async function requestPairing(db: StoreDatabase, input: NewPairingRequest, limits: PairingLimits): Promise<PairingRequestResult> {
  return db.transaction(async (transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(hashtext(${`pairing:${input.channel}`}))`);
    const [existing] = await transaction
      .select()
      .from(pairingRequests)
      .where(and(eq(pairingRequests.channel, input.channel), eq(pairingRequests.userId, input.userId), pending(limits.now)))
      .limit(1);
    if (existing) return { kind: 'pending', request: existing };
    const [open] = await transaction
      .select({ n: count() })
      .from(pairingRequests)
      .where(and(eq(pairingRequests.channel, input.channel), pending(limits.now)));
    if ((open?.n ?? 0) >= limits.maxPendingPerChannel) return { kind: 'full', pending: open?.n ?? 0 };
    for (let attempt = 0; attempt < 5; attempt++) {
      const [inserted] = await transaction
        .insert(pairingRequests)
        .values({
          code: limits.newCode(),
          channel: input.channel,
          accountId: input.accountId,
          userId: input.userId,
          userName: input.userName ?? null,
          createdAt: limits.now,
          expiresAt: new Date(limits.now.getTime() + limits.ttlMs),
        })
        .onConflictDoNothing({ target: pairingRequests.code })
        .returning();
      if (inserted) return { kind: 'issued', request: inserted };
    }
    throw new Error('could not find an unused pairing code');
  });
}

export type ApprovalResult =
  | { kind: 'approved'; request: PairingRequestRow }
  | { kind: 'unknown' | 'expired' | 'already-approved'; request?: PairingRequestRow };

/** Approves a pending code: the request is marked and its user added to the approved senders, in one transaction. */
export async function approvePairing(db: StoreDatabase, code: string, now: Date): Promise<ApprovalResult> {
  return db.transaction(async (transaction) => {
    const [request] = await transaction.select().from(pairingRequests).where(eq(pairingRequests.code, code)).limit(1).for('update');
    if (!request) return { kind: 'unknown' };
    if (request.approvedAt) return { kind: 'already-approved', request };
    if (request.expiresAt <= now) return { kind: 'expired', request };
    const [approved] = await transaction.update(pairingRequests).set({ approvedAt: now }).where(eq(pairingRequests.id, request.id)).returning();
    await transaction
      .insert(approvedSenders)
      .values({ channel: request.channel, userId: request.userId, userName: request.userName, pairingCode: request.code, approvedAt: now })
      .onConflictDoNothing();
    return { kind: 'approved', request: approved ?? request };
  });
}

export async function pendingPairings(db: StoreDatabase, now: Date): Promise<PairingRequestRow[]> {
  return db.select().from(pairingRequests).where(pending(now)).orderBy(asc(pairingRequests.createdAt));
}

export async function isApprovedSender(db: StoreDatabase, channel: ChannelName, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: approvedSenders.userId })
    .from(approvedSenders)
    .where(and(eq(approvedSenders.channel, channel), eq(approvedSenders.userId, userId)))
    .limit(1);
  return row !== undefined;
}
