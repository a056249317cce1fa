import { crc32 } from 'node:zlib';

/** A session's keys: all of them carry its shard's hash tag, so every script touching them stays in one slot. */
export interface SessionKeys {
  shard: number;
  /** LIST of pending entries (see lua/common.lua). */
  pending: string;
  /** HASH of counts and the history version. */
  meta: string;
  /** HASH turn id → running turn. */
  turns: string;
  /** The shard's schedule and marker (in the session's slot). */
  sched: string;
  wake: string;
  alive: string;
  held(workerId: string): string;
  /** ZSET of the sessions a worker is asked to look at first: placed on it, or released by it (see lua/enqueue.lua). */
  preferred(workerId: string): string;
  /** LIST of a running turn's completed steps. */
  steps(turnId: string): string;
  /** HASH of a turn's computed answer and its delivery. */
  delivery(turnId: string): string;
  /** An approval answered before the turn parked. */
  earlyAnswer(turnId: string): string;
  /** Files a turn's `send_file` calls sent (once per call). */
  fileSends(turnId: string): string;
  /** STRING: the message with this dedupe key was seen (a day). */
  seen(dedupeKey: string): string;
  /** SET of a chat session's thread and topic sessions (a chat-level /stop reaches them). */
  threads: string;
  /** LIST of unaddressed group lines kept for the next turn. */
  groupContext: string;
  /** LIST of the lines a turn took (see claim-context.lua). */
  groupContextClaim(turnId: string): string;
  /** A try-lock held by one process (summaries). */
  lock(name: string): string;
  /** SET of the approval request ids a turn made. */
  approvals(turnId: string): string;
  /** SET of the tools "Allow for this session" covers, until /new. */
  approvedTools: string;
  /** LIST of a failing turn's reasons, one per failed attempt (see record-failure.lua). */
  failures(turnId: string): string;
  /** The shard's dead letters (in the session's slot): see ShardKeys. */
  deadLetters: string;
  deadLetter(id: string): string;
}

export interface ShardKeys {
  shard: number;
  sched: string;
  wake: string;
  alive: string;
  held(workerId: string): string;
  preferred(workerId: string): string;
  /** ZSET dead letter id → when its turn was abandoned (see dead-letter.lua). */
  deadLetters: string;
  /** HASH of one dead letter: the abandoned turn's messages, error and every attempt's reason. */
  deadLetter(id: string): string;
}

/**
 * Every Redis key the service names, in one place. Sessions are spread over QUEUE_SHARDS shards by a hash of
 * their key; a shard's hash tag `{<prefix>:<n>}` is on every key of its sessions and on its schedule, so a
 * session's state and the queue that runs it share a Redis Cluster slot, and the shards spread over the masters.
 * Other families carry a tag of their own (one slot per family or per item, as their scripts need).
 */
export class KeySpace {
  constructor(
    readonly prefix: string,
    readonly shardCount: number,
    readonly cluster: boolean,
  ) {
    if (!Number.isInteger(shardCount) || shardCount < 1) throw new Error(`QUEUE_SHARDS must be a positive integer, got ${shardCount}`);
  }

  shardOf(sessionKey: string): number {
    return this.shardCount === 1 ? 0 : crc32(sessionKey) % this.shardCount;
  }

  shards(): ShardKeys[] {
    return Array.from({ length: this.shardCount }, (_, shard) => this.shard(shard));
  }

  shard(shard: number): ShardKeys {
    const tag = this.tag(shard);
    return {
      shard,
      sched: `${tag}:sched`,
      wake: `${tag}:wake`,
      alive: `${tag}:alive`,
      held: (workerId) => `${tag}:held:${workerId}`,
      preferred: (workerId) => `${tag}:pref:${workerId}`,
      deadLetters: `${tag}:dead`,
      deadLetter: (id) => `${tag}:dead:${id}`,
    };
  }

  session(sessionKey: string): SessionKeys {
    const shard = this.shardOf(sessionKey);
    const tag = this.tag(shard);
    return new SessionKeySet(shard, tag, `${tag}:s:${sessionKey}`);
  }

  /** BullMQ's prefix: one hash tag for all of its queues on a cluster (its scripts touch several keys of a queue). */
  get bullmqPrefix(): string {
    return this.cluster ? `{${this.prefix}}` : this.prefix;
  }

  /** A lease one process holds at a time (connections, leaders). */
  lease(name: string): string {
    return `{${this.prefix}:lease:${name}}`;
  }

  /** What a channel keeps: a marker (an event already handled), a high mark, a log of the ids its processes saw. */
  channelState(key: string): string {
    return `{${this.prefix}:state:${key}}`;
  }

  albumAddressed(mediaGroupId: string): string {
    return `{${this.prefix}:album:${mediaGroupId}}`;
  }

  /** HASH of one approval request (a button carries only its id, so it is found by the id alone). */
  approval(id: string): string {
    return `{${this.prefix}:approval:${id}}`;
  }

  /** ZSET of the approval request ids still pending, for the operator console. */
  get approvalsPending(): string {
    return `{${this.prefix}:approvals}:pending`;
  }

  /** A user's sliding rate window (ZSET) and its "told already" marker. */
  rateLimit(userKey: string): { window: string; notified: string } {
    const tag = `{${this.prefix}:rate:${userKey}}`;
    return { window: tag, notified: `${tag}:notified` };
  }

  /** The spend of one UTC day: every scope's key shares the day's tag (one script reserves over all of them). */
  budgetDay(day: string): { user(id: string): string; chat(id: string): string; agent(id: string): string; notice(chat: string): string; all: string } {
    const tag = `{${this.prefix}:budget:${day}}`;
    return {
      user: (id) => `${tag}:user:${id}`,
      chat: (id) => `${tag}:chat:${id}`,
      agent: (id) => `${tag}:agent:${id}`,
      notice: (chat) => `${tag}:notice:${chat}`,
      all: `${tag}:*`,
    };
  }

  /** STRING set while an operator has paused turns (the queue view's Pause on `turns`): no worker starts one. */
  get turnsPaused(): string {
    return `{${this.prefix}:settings}:turns-paused`;
  }

  /** HASH of the daily limits set in the console. */
  get budgetLimits(): string {
    return `{${this.prefix}:settings}:budget-limits`;
  }

  /** Wrong admin passwords from one client address: all of them, and those for one user name (`userKey`: its digest). */
  adminLogin(address: string, userKey: string): { failures: string; locked: string; userFailures: string; userLocked: string } {
    const tag = `{${this.prefix}:admin-login:${address}}`;
    return { failures: `${tag}:failures`, locked: `${tag}:locked`, userFailures: `${tag}:user:${userKey}:failures`, userLocked: `${tag}:user:${userKey}:locked` };
  }

  /** HASH account → when a gateway last received an update for it. */
  get channelActivity(): string {
    return `{${this.prefix}:channels}:last-update`;
  }

  /** HASH worker id → that worker's MCP servers and their state (JSON), for the console. */
  get mcpStatus(): string {
    return `{${this.prefix}:workers}:mcp-status`;
  }

  /** A model that failed recently is skipped until this key expires (model failover). */
  modelCooldown(model: string): string {
    return `{${this.prefix}:llm}:cooldown:${model}`;
  }

  /** The pub/sub channel of "drop what you cached" notices (see Invalidations). */
  get invalidationChannel(): string {
    return `${this.prefix}:invalidate`;
  }

  /** The pub/sub channel of /stop notices (a channel, not a key). */
  get abortChannel(): string {
    return `${this.prefix}:abort`;
  }

  private tag(shard: number): string {
    return `{${this.prefix}:${shard}}`;
  }
}

/**
 * A session's keys, each made when asked for: the scripts of one message ask for a few of them, several times
 * (an object of every key and closure, made at each call, was a measurable share of a message's garbage).
 */
class SessionKeySet implements SessionKeys {
  constructor(
    readonly shard: number,
    private readonly tag: string,
    private readonly base: string,
  ) {}

  get pending(): string {
    return `${this.base}:q`;
  }
  get meta(): string {
    return `${this.base}:m`;
  }
  get turns(): string {
    return `${this.base}:t`;
  }
  get sched(): string {
    return `${this.tag}:sched`;
  }
  get wake(): string {
    return `${this.tag}:wake`;
  }
  get alive(): string {
    return `${this.tag}:alive`;
  }
  get threads(): string {
    return `${this.base}:threads`;
  }
  get groupContext(): string {
    return `${this.base}:ctx`;
  }
  get approvedTools(): string {
    return `${this.base}:approved-tools`;
  }
  get deadLetters(): string {
    return `${this.tag}:dead`;
  }
  deadLetter(id: string): string {
    return `${this.tag}:dead:${id}`;
  }
  failures(turnId: string): string {
    return `${this.base}:e:${turnId}`;
  }
  held(workerId: string): string {
    return `${this.tag}:held:${workerId}`;
  }
  preferred(workerId: string): string {
    return `${this.tag}:pref:${workerId}`;
  }
  steps(turnId: string): string {
    return `${this.base}:c:${turnId}`;
  }
  delivery(turnId: string): string {
    return `${this.base}:d:${turnId}`;
  }
  earlyAnswer(turnId: string): string {
    return `${this.base}:r:${turnId}`;
  }
  fileSends(turnId: string): string {
    return `${this.base}:f:${turnId}`;
  }
  seen(dedupeKey: string): string {
    return `${this.tag}:seen:${dedupeKey}`;
  }
  groupContextClaim(turnId: string): string {
    return `${this.base}:ctx:${turnId}`;
  }
  lock(name: string): string {
    return `${this.base}:lock:${name}`;
  }
  approvals(turnId: string): string {
    return `${this.base}:approvals:${turnId}`;
  }
}
