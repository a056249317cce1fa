/**
 * A little shared memory for channel adapters that must agree across processes
 * (e.g. "the bot has answered in this Slack thread"); backed by Redis in the service.
 */
export interface ChannelState {
  has(key: string): Promise<boolean>;
  remember(key: string, ttlSeconds: number): Promise<void>;
}

/**
 * Short texts channel adapters keep across processes (e.g. the channel a Slack user views beside an assistant
 * thread), and one-time claims (e.g. "this thread was greeted"); backed by Redis in the service.
 */
export interface ChannelNotes {
  /** Keeps `text` under `key` for `ttlSeconds` from now, replacing what was there. */
  keepText(key: string, text: string, ttlSeconds: number): Promise<void>;
  /** The text kept under `key`; undefined when there is none (or it expired). */
  textOf(key: string): Promise<string | undefined>;
  /** Marks `key` for `ttlSeconds` unless it is marked already: true for the first caller only. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

/** Numbers that only grow, shared by every process (e.g. the highest Telegram message id any process has seen). */
export interface SharedHighMarks {
  /** Raises the number under `key` to `value` unless it is higher already; kept `ttlSeconds` from now. */
  raise(key: string, value: number, ttlSeconds: number): Promise<void>;
  /** The number under `key`; 0 when there is none. */
  read(key: string): Promise<number>;
  /**
   * Adds numbered sightings to the log under `key` (e.g. the Telegram message ids a process saw, each tagged with
   * its chat): numbers more than `keepLast` below the highest one added go, the log is kept `ttlSeconds` from now.
   */
  note(key: string, sightings: readonly Sighting[], keepLast: number, ttlSeconds: number): Promise<void>;
  /** The sightings under `key` numbered `from` to `through`, lowest first, at most `limit`. */
  noted(key: string, from: number, through: number, limit: number): Promise<Sighting[]>;
}

/** A number some process saw, and what it belongs to. */
export interface Sighting {
  value: number;
  tag: string;
}
