import { and, asc, count, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { StoreDatabase } from '../store/database.js';
import { scheduledTasks, type NewScheduledTaskRow, type ScheduledTaskRow, type ScheduledTaskStatus } from '../store/schema/scheduled-tasks.js';

export type ScheduledTask = ScheduledTaskRow;

/** Statuses that still count against SCHEDULE_MAX_PER_CHAT and show in `/tasks`. */
const LIVE: ScheduledTaskStatus[] = ['active', 'paused'];

/**
 * Inserts the task unless the chat already has `maxPerChat` live ones; the count and the insert are one
 * statement, so two concurrent requests cannot both take the last place.
 */
export async function insertTaskWithinLimit(db: StoreDatabase, task: NewScheduledTaskRow, maxPerChat: number): Promise<ScheduledTask | undefined> {
  return db.transaction(async (tx) => {
    // one writer per chat at a time: the advisory lock is released with the transaction
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${task.chatKey}))`);
    const [live] = await tx
      .select({ n: count() })
      .from(scheduledTasks)
      .where(and(eq(scheduledTasks.chatKey, task.chatKey), inArray(scheduledTasks.status, LIVE)));
    if ((live?.n ?? 0) >= maxPerChat) return undefined;
    const [inserted] = await tx.insert(scheduledTasks).values(task).returning();
    return inserted;
  });
}

export async function findTask(db: StoreDatabase, id: string): Promise<ScheduledTask | undefined> {
  const [row] = await db.select().from(scheduledTasks).where(eq(scheduledTasks.id, id));
  return row;
}

/** The chat's live tasks (only those of one topic's session when `sessionKey` is given), oldest first. */
export async function listChatTasks(db: StoreDatabase, chatKey: string, sessionKey?: string): Promise<ScheduledTask[]> {
  return db
    .select()
    .from(scheduledTasks)
    .where(and(eq(scheduledTasks.chatKey, chatKey), sessionKey === undefined ? undefined : eq(scheduledTasks.sessionKey, sessionKey), inArray(scheduledTasks.status, LIVE)))
    .orderBy(asc(scheduledTasks.createdAt), asc(scheduledTasks.id));
}

/** Every active task (start-up re-arms those whose BullMQ scheduler is missing). */
export async function listActiveTasks(db: StoreDatabase): Promise<ScheduledTask[]> {
  return db.select().from(scheduledTasks).where(eq(scheduledTasks.status, 'active'));
}

/** Cancels a live task of the chat (of one topic's session when `sessionKey` is given); undefined when there is no such task. */
export async function cancelChatTask(db: StoreDatabase, chatKey: string, id: string, sessionKey?: string): Promise<ScheduledTask | undefined> {
  const [row] = await db
    .update(scheduledTasks)
    .set({ status: 'cancelled', nextRunAt: null, updatedAt: new Date() })
    .where(and(eq(scheduledTasks.id, id), eq(scheduledTasks.chatKey, chatKey), sessionKey === undefined ? undefined : eq(scheduledTasks.sessionKey, sessionKey), inArray(scheduledTasks.status, LIVE)))
    .returning();
  return row;
}

/**
 * A firing of the slot `slotAt` is being handed to the session: its time, the next run, and an outcome of
 * `queued` until the turn reports; after a catch-up, `skipBefore` (regular times before it are skipped).
 * Written once per slot: a retried firing does not overwrite the outcome its first attempt's turn may already
 * have recorded.
 */
export async function recordFiring(db: StoreDatabase, id: string, slotAt: Date, nextRunAt: Date | undefined, skipBefore?: Date): Promise<void> {
  await db
    .update(scheduledTasks)
    .set({ lastRunAt: slotAt, nextRunAt: nextRunAt ?? null, skipBefore: skipBefore ?? null, lastOutcome: 'queued', lastError: null, updatedAt: new Date() })
    .where(and(eq(scheduledTasks.id, id), or(isNull(scheduledTasks.lastRunAt), lt(scheduledTasks.lastRunAt, slotAt))));
}

/** A one-shot's firing was handed to its session: nothing more to run. */
export async function markDone(db: StoreDatabase, id: string): Promise<void> {
  await db
    .update(scheduledTasks)
    .set({ status: 'done', nextRunAt: null, updatedAt: new Date() })
    .where(and(eq(scheduledTasks.id, id), eq(scheduledTasks.status, 'active')));
}

/** What the firing's turn came to; a failed delivery keeps its error for `/tasks`. */
export async function recordOutcome(db: StoreDatabase, id: string, outcome: string, error: string | undefined): Promise<void> {
  await db.update(scheduledTasks).set({ lastOutcome: outcome, lastError: error ?? null, updatedAt: new Date() }).where(eq(scheduledTasks.id, id));
}

/**
 * One task by id, or the tasks of a chat (of every chat of a bot account when `chatId` is absent; of one forum
 * topic or private-chat topic of the chat when `threadId` is given).
 */
export type TaskSelection = { taskId: string } | { channel: string; accountId: string; chatId?: string | undefined; threadId?: string | undefined };

function selected(selection: TaskSelection) {
  if ('taskId' in selection) return eq(scheduledTasks.id, selection.taskId);
  const conversation = scheduledTasks.conversation;
  return and(
    sql`${conversation}->>'channel' = ${selection.channel}`,
    sql`${conversation}->>'accountId' = ${selection.accountId}`,
    selection.chatId === undefined ? undefined : sql`${conversation}->>'chatId' = ${selection.chatId}`,
    selection.threadId === undefined ? undefined : sql`${conversation}->>'threadId' = ${selection.threadId}`,
  );
}

/** Pauses the selected active tasks, saying why; returns those it paused. */
export async function pauseTasks(db: StoreDatabase, selection: TaskSelection, reason: string): Promise<ScheduledTask[]> {
  return db
    .update(scheduledTasks)
    .set({ status: 'paused', pausedReason: reason, nextRunAt: null, skipBefore: null, updatedAt: new Date() })
    .where(and(selected(selection), eq(scheduledTasks.status, 'active')))
    .returning();
}

/** Makes the selected paused tasks active again, except those paused for a reason starting with `keepPausedFor`; returns those it resumed. */
export async function resumeTasks(db: StoreDatabase, selection: TaskSelection, keepPausedFor?: string): Promise<ScheduledTask[]> {
  return db
    .update(scheduledTasks)
    .set({ status: 'active', pausedReason: null, updatedAt: new Date() })
    .where(and(selected(selection), eq(scheduledTasks.status, 'paused'), keepPausedFor === undefined ? undefined : sql`coalesce(${scheduledTasks.pausedReason}, '') not like ${`${keepPausedFor}%`}`))
    .returning();
}

export async function setNextRun(db: StoreDatabase, id: string, nextRunAt: Date): Promise<void> {
  await db.update(scheduledTasks).set({ nextRunAt, updatedAt: new Date() }).where(eq(scheduledTasks.id, id));
}
