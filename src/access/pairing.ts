import type { ChannelName } from '../core/inbound-message.js';
import { moduleLogger, type Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import {
  approvePairing,
  isApprovedSender,
  pendingPairings,
  requestPairing,
  type ApprovalResult,
  type NewPairingRequest,
  type PairingRequestResult,
  type StoreDatabase,
} from '../store/index.js';
import type { PairingRequestRow } from '../store/schema/index.js';
import { generatePairingCode, normalizePairingCode } from './pairing-code.js';

/** Short enough that strangers filling the pending slots lock nobody out for long. */
export const PAIRING_TTL_MS = 15 * 60 * 1000;
/** Pending codes per platform; each user holds at most one (writing again repeats it). */
export const MAX_PENDING_PER_CHANNEL = 50;
/** An approval is seen by every process at once (misses go to the database); hits are cached this long. */
const APPROVED_CACHE_MS = 60_000;
const APPROVED_CACHE_LIMIT = 10_000;

export interface PairingOptions {
  ttlMs?: number;
  maxPendingPerChannel?: number;
  clock?: () => number;
  newCode?: () => string;
  /** Told (once per code lifetime and channel) when the channel is full. */
  logger?: Logger;
  /** Counts strangers refused because the channel is full. */
  metrics?: Metrics;
}

/**
 * DM_POLICY=pairing, kept in PostgreSQL: pending codes and approved users are durable and shared by
 * every gateway and the CLI (an approval is an operator's decision; it must survive a Redis flush).
 */
export class PairingService {
  readonly #approved = new Map<string, number>();
  readonly ttlMs: number;
  readonly #maxPending: number;
  readonly #clock: () => number;
  readonly #newCode: () => string;
  readonly #logger: Logger;
  readonly #metrics: Metrics | undefined;
  /** Per channel: until when the "full" warning is not repeated (in this process). */
  readonly #fullWarnedUntil = new Map<ChannelName, number>();

  constructor(
    private readonly db: StoreDatabase,
    options: PairingOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? PAIRING_TTL_MS;
    this.#maxPending = options.maxPendingPerChannel ?? MAX_PENDING_PER_CHANNEL;
    this.#clock = options.clock ?? Date.now;
    this.#newCode = options.newCode ?? (() => generatePairingCode());
    this.#logger = options.logger ?? moduleLogger('pairing');
    this.#metrics = options.metrics;
  }

  async isApproved(channel: ChannelName, userId: string): Promise<boolean> {
    const key = `${channel}:${userId}`;
    const now = this.#clock();
    const cachedUntil = this.#approved.get(key);
    if (cachedUntil !== undefined && cachedUntil > now) return true;
    if (!(await isApprovedSender(this.db, channel, userId))) return false;
    if (this.#approved.size >= APPROVED_CACHE_LIMIT) this.#approved.delete(this.#approved.keys().next().value!);
    this.#approved.set(key, now + APPROVED_CACHE_MS);
    return true;
  }

  /** The user's pending code (the same one again), a new one, or `full` when the channel has too many pending. */
  async request(input: NewPairingRequest): Promise<PairingRequestResult> {
    const now = this.#clock();
    const result = await requestPairing(this.db, input, {
      now: new Date(now),
      ttlMs: this.ttlMs,
      maxPendingPerChannel: this.#maxPending,
      newCode: this.#newCode,
    });
    if (result.kind === 'full') this.#reportFull(input.channel, result.pending, now);
    return result;
  }

  #reportFull(channel: ChannelName, pending: number, now: number): void {
    this.#metrics?.pairingRefused.inc({ channel });
    if (now < (this.#fullWarnedUntil.get(channel) ?? 0)) return;
    this.#fullWarnedUntil.set(channel, now + this.ttlMs);
    this.#logger.warn(
      { channel, pending, limit: this.#maxPending, ttlMinutes: Math.round(this.ttlMs / 60_000) },
      `${pending} pairing codes pending on ${channel}: new strangers are told to try later until codes expire or are approved (\`pairing list\`, \`pairing approve <CODE>\`); logged once per code lifetime`,
    );
  }

  /** `cli pairing approve <code>`; the code is matched whatever its case or dashes. */
  async approve(input: string): Promise<ApprovalResult> {
    const code = normalizePairingCode(input);
    if (!code) return { kind: 'unknown' };
    return approvePairing(this.db, code, new Date(this.#clock()));
  }

  pending(): Promise<PairingRequestRow[]> {
    return pendingPairings(this.db, new Date(this.#clock()));
  }
}
