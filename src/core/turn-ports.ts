/**
 * What a turn needs from shared state, as ports: the turn layer depends on these interfaces, the Redis
 * layer (`src/redis/`) implements them, and the worker role wires one to the other.
 */

/** A group message nobody addressed to the bot, kept for the next turn of that group. */
export interface ContextLine {
  senderName: string;
  text: string;
  sentAt: number;
}

/** The group's unaddressed messages: taken by the turn that shows them, let go once it is stored. */
export interface GroupContextPort {
  remember(sessionKey: string, line: ContextLine): Promise<void>;
  /** Oldest first; a turn beside this one does not see them, a retry of this turn sees them again. */
  claim(sessionKey: string, turnId: string): Promise<ContextLine[]>;
  release(sessionKey: string, turnId: string): Promise<void>;
}

export interface HeldLock {
  /** False once the lock expired or was taken over (renewal failed). */
  readonly held: boolean;
  release(): Promise<void>;
}

/** A per-session try-lock shared by every process (summaries: one at a time per session). */
export interface SessionLockPort {
  tryAcquire(name: string, sessionKey: string): Promise<HeldLock | undefined>;
}

/** Who may write a turn's state: the turn's current lease holder. */
export interface TurnLease {
  sessionKey: string;
  turnId: string;
  holder: string;
}

/**
 * A running turn's state beside its lease: completed steps (the checkpoint) and the delivery record.
 * Writes answer `lost` when `holder` no longer holds the turn (nothing written).
 */
export interface TurnStatePort {
  append(sessionKey: string, turnId: string, holder: string, step: unknown): Promise<'ok' | 'lost'>;
  load(sessionKey: string, turnId: string): Promise<unknown[]>;
  /**
   * With `intent` (the fields announce a send), nothing is written and `expired` answered when the lease has run
   * out or the holder's worker stopped beating, even before another worker took the turn back: a send must not
   * begin then.
   */
  save(lease: TurnLease, fields: Record<string, string>, options?: { intent?: boolean }): Promise<'ok' | 'lost' | 'expired'>;
  delivery(sessionKey: string, turnId: string): Promise<Record<string, string>>;
  deliveryField(sessionKey: string, turnId: string, field: string): Promise<string | undefined>;
}
