import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { ChatType } from '../../core/inbound-message.js';
import type { StoreDatabase } from '../database.js';
import { people, scheduledTasks, sessions, type ScheduledTaskRow, type ScheduledTaskStatus } from '../schema/index.js';

/** Tasks that still fire (or may again): what `/tasks` lists. */
const LIVE: ScheduledTaskStatus[] = ['active', 'paused'];

export interface ConsoleTask extends ScheduledTaskRow {
  /** The creator's name now (`people`), else as the task stored it. */
  creatorLabel: string | null;
  creatorUsername: string | null;
}

export interface ConsoleTaskChat {
  chatKey: string;
  /** The session the tasks fire in (the first task's), when it is stored. */
  sessionKey: string;
  channel: string;
  chatId: string;
  chatType: ChatType;
  title: string | null;
  userName: string | null;
  username: string | null;
  tasks: ConsoleTask[];
}

export interface TaskChatsPage {
  chats: ConsoleTaskChat[];
  /** The last chat key of the page when more chats follow. */
  nextAfter: string | undefined;
}

const creators = alias(people, 'creators');
const chatUsers = alias(people, 'chat_users');

/**
 * Live tasks, a page of chats at a time (each chat has at most SCHEDULE_MAX_PER_CHAT tasks), chats by key,
 * tasks by creation: the chats come from `scheduled_tasks_chat_key_status_index`, then their tasks with the
 * names of the chat and of each task's creator.
 */
export async function liveTaskChats(db: StoreDatabase, query: { limit: number; after?: string | undefined }): Promise<TaskChatsPage> {
  const chatRows = await db
    .selectDistinct({ chatKey: scheduledTasks.chatKey })
    .from(scheduledTasks)
    .where(and(inArray(scheduledTasks.status, LIVE), query.after === undefined ? undefined : gt(scheduledTasks.chatKey, query.after)))
    .orderBy(asc(scheduledTasks.chatKey))
    .limit(query.limit + 1);
  const chatKeys = chatRows.slice(0, query.limit).map((row) => row.chatKey);
  if (chatKeys.length === 0) return { chats: [], nextAfter: undefined };
  const rows = await db
    .select({
      task: scheduledTasks,
      creatorName: creators.name,
      creatorUsername: creators.username,
      title: sessions.title,
      chatType: sessions.chatType,
      userName: chatUsers.name,
      username: chatUsers.username,
    })
    .from(scheduledTasks)
    .leftJoin(sessions, eq(sessions.key, scheduledTasks.sessionKey))
    .leftJoin(chatUsers, and(eq(chatUsers.channel, sessions.channel), eq(chatUsers.userId, sessions.userId)))
    .leftJoin(creators, and(sql`${creators.channel} = ${scheduledTasks.conversation}->>'channel'`, eq(creators.userId, scheduledTasks.creatorId)))
    .where(and(inArray(scheduledTasks.chatKey, chatKeys), inArray(scheduledTasks.status, LIVE)))
    .orderBy(asc(scheduledTasks.chatKey), asc(scheduledTasks.createdAt), asc(scheduledTasks.id));
  const chats = new Map<string, ConsoleTaskChat>();
  for (const row of rows) {
    const { task } = row;
    let chat = chats.get(task.chatKey);
    if (!chat) {
      chat = {
        chatKey: task.chatKey,
        sessionKey: task.sessionKey,
        channel: task.conversation.channel,
        chatId: task.conversation.chatId,
        chatType: row.chatType ?? task.conversation.chatType,
        title: row.title,
        userName: row.userName,
        username: row.username,
        tasks: [],
      };
      chats.set(task.chatKey, chat);
    }
    chat.tasks.push({ ...task, creatorLabel: row.creatorName ?? task.creatorName, creatorUsername: row.creatorUsername });
  }
  return { chats: [...chats.values()], nextAfter: chatRows.length > query.limit ? chatKeys.at(-1) : undefined };
}

/** A task by id, whatever its state (what the console reports after cancelling). */
export async function findConsoleTask(db: StoreDatabase, id: string): Promise<ScheduledTaskRow | undefined> {
  const [row] = await db.select().from(scheduledTasks).where(eq(scheduledTasks.id, id)).limit(1);
  return row;
}
