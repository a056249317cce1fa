import type { InboundOutcome } from '../../src/core/index.js';

const REMEMBER_MS = 10 * 60 * 1000;
const MAX_ENTRIES = 10_000;

/**
 * Slack delivers a channel mention twice (`app_mention` and `message.channels`, often at the same moment)
 * and redelivers slow answers. The queue drops a second turn, but commands and unaddressed context lines
 * never reach it, so this process passes each message to the sink once: a copy that arrives while the first
 * is being handled waits for it and is dropped, unless the first was rejected (then it is tried again).
 */
export class RecentDeliveries {
  private readonly inFlight = new Map<string, Promise<InboundOutcome>>();
  private readonly delivered = new Map<string, number>();

  async deliver(key: string, handle: () => Promise<InboundOutcome>): Promise<InboundOutcome> {
    this.forgetOld();
    if (this.delivered.has(key)) return { kind: 'duplicate' };
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      const first = await pending.catch((): InboundOutcome => ({ kind: 'rejected', reason: 'failed' }));
      if (first.kind !== 'rejected') return { kind: 'duplicate' };
      return this.deliver(key, handle);
    }
    const attempt = handle();
    this.inFlight.set(key, attempt);
    try {
      const outcome = await attempt;
      if (outcome.kind !== 'rejected') this.delivered.set(key, Date.now() + REMEMBER_MS);
      return outcome;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private forgetOld(): void {
    const now = Date.now();
    for (const [key, expiresAt] of this.delivered) {
      if (expiresAt > now && this.delivered.size <= MAX_ENTRIES) break;
      this.delivered.delete(key);
    }
  }
}
