import type { Update } from 'grammy/types';
import { createUpdateFactory } from '../test/doubles/telegram-double.js';
import { tokenOf, type MessageTracker } from './tracker.js';

/** One benchmark message: its sequence number (token), the session it belongs to and the Telegram update. */
export interface Outgoing {
  seq: number;
  session: string;
  update: Update;
}

type UpdateFactory = ReturnType<typeof createUpdateFactory>;

let nextSeq = 1;

interface Session {
  id: string;
  kind: 'dm' | 'group';
  /** DM: the user id; group: the (negative) chat id. */
  chatId: number;
}

function compose(factory: UpdateFactory, session: Session, seq: number): Outgoing {
  const text = `benchmark question ${tokenOf(seq)} — please answer briefly`;
  const update =
    session.kind === 'dm'
      ? factory.privateText(session.chatId, text)
      : factory.mention(session.chatId, 700_000 + (seq % 50), text);
  return { seq, session: session.id, update };
}

/**
 * A pool of DM users and groups (a mention in a group every `groupEvery`-th message).
 * `take()` serves sessions with no message outstanding (closed loop: no collecting, no waiting behind a
 * running turn); `next()` cycles round-robin regardless (open loop); `release()` frees a session again.
 */
export class SessionPool {
  private readonly freeDms: Session[] = [];
  private readonly freeGroups: Session[] = [];
  private readonly byId = new Map<string, Session>();
  private readonly dms: Session[] = [];
  private readonly groups: Session[] = [];
  /** Sessions that have not had a message yet: served first, so a warm-up touches every session once. */
  private readonly neverUsed = new Set<Session>();
  private readonly groupEvery: number;
  private cursor = 0;
  private count = 0;

  private readonly firstUserId: number;
  /** DM sessions added by `takeOrAdd` because every session was busy. */
  added = 0;

  constructor(
    private readonly factory: UpdateFactory,
    options: { dmUsers: number; groups: number; firstUserId: number; firstGroupId: number; groupEvery: number },
  ) {
    this.groupEvery = options.groupEvery;
    this.firstUserId = options.firstUserId;
    for (let index = 0; index < options.dmUsers; index++) this.add({ id: `dm:${options.firstUserId + index}`, kind: 'dm', chatId: options.firstUserId + index });
    for (let index = 0; index < options.groups; index++) this.add({ id: `group:${options.firstGroupId - index}`, kind: 'group', chatId: options.firstGroupId - index });
  }

  private add(session: Session): void {
    this.byId.set(session.id, session);
    (session.kind === 'dm' ? this.dms : this.groups).push(session);
    (session.kind === 'dm' ? this.freeDms : this.freeGroups).push(session);
    this.neverUsed.add(session);
  }

  /** A message to a session that has nothing outstanding; undefined when every session is busy. */
  take(): Outgoing | undefined {
    let session: Session | undefined;
    if (this.neverUsed.size > 0) {
      session = this.neverUsed.values().next().value!;
      const free = session.kind === 'dm' ? this.freeDms : this.freeGroups;
      free.splice(free.indexOf(session), 1);
    } else {
      const wantGroup = this.groupEvery > 0 && this.count % this.groupEvery === 0;
      session = (wantGroup ? this.freeGroups.shift() : undefined) ?? this.freeDms.shift() ?? this.freeGroups.shift();
    }
    if (!session) return undefined;
    this.neverUsed.delete(session);
    this.count += 1;
    return compose(this.factory, session, nextSeq++);
  }

  /**
   * Open loop without collecting: a DM session with nothing outstanding, or a new DM session when every one is busy
   * (it joins the pool, so later loads find it returning).
   */
  takeOrAdd(): Outgoing {
    const free = this.take();
    if (free) return free;
    const userId = this.firstUserId + this.dms.length;
    const session: Session = { id: `dm:${userId}`, kind: 'dm', chatId: userId };
    this.byId.set(session.id, session);
    this.dms.push(session);
    this.added += 1;
    this.count += 1;
    return compose(this.factory, session, nextSeq++);
  }

  /** A session is free again once its message is answered. */
  followAnswers(tracker: MessageTracker): this {
    tracker.onAnswered((message) => this.release(message.session));
    return this;
  }

  private release(sessionId: string): void {
    const session = this.byId.get(sessionId);
    if (session) (session.kind === 'dm' ? this.freeDms : this.freeGroups).push(session);
  }

  /** Open loop: groups every `groupEvery`-th message, DMs round-robin otherwise. */
  next(): Outgoing {
    const { dms, groups } = this;
    const wantGroup = this.groupEvery > 0 && groups.length > 0 && this.count % this.groupEvery === 0;
    const session = wantGroup ? groups[Math.floor(this.count / this.groupEvery) % groups.length]! : dms[this.cursor++ % dms.length]!;
    this.neverUsed.delete(session);
    this.count += 1;
    return compose(this.factory, session, nextSeq++);
  }
}

/** Every message from a new DM user, never seen before. */
export class FreshSessions {
  private nextUserId: number;

  constructor(
    private readonly factory: UpdateFactory,
    firstUserId: number,
  ) {
    this.nextUserId = firstUserId;
  }

  take(): Outgoing {
    const userId = this.nextUserId++;
    return compose(this.factory, { id: `dm:${userId}`, kind: 'dm', chatId: userId }, nextSeq++);
  }
}

export function updateFactory(bot: { botId: number; botUsername: string }): UpdateFactory {
  return createUpdateFactory({ id: bot.botId, username: bot.botUsername });
}
