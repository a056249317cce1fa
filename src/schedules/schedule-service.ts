import { randomBytes } from 'node:crypto';
import { ToolError } from '../agent/tools/agent-tool.js';
import type { ConversationRef } from '../core/inbound-message.js';
import type { Logger } from '../observability/logger.js';
import type { StoreDatabase } from '../store/database.js';
import type { ScheduleQueue } from './schedule-queue.js';
import { parseSchedule, type ScheduleRequest } from './schedule-spec.js';
import { pauseAndDisarm, resumeAndArm } from './task-pause.js';
import { cancelChatTask, insertTaskWithinLimit, listChatTasks, setNextRun, type ScheduledTask } from './task-repository.js';

export interface ScheduleLimitsConfig {
  minIntervalSeconds: number;
  maxPerChat: number;
}

export interface TaskCreator {
  sessionKey: string;
  conversation: ConversationRef;
  agentId: string;
  userId: string;
  userName?: string | undefined;
}

export const PROMPT_MAX_CHARS = 4_000;

/** The chat a session belongs to (its key without a thread or topic): where `/tasks` lists and the limit counts. */
export function chatKeyOf(sessionKey: string): string {
  return sessionKey.replace(/:(?:thread|topic):.*$/, '');
}

/**
 * Where `/tasks` and `list_tasks` look: in a forum topic (or a private-chat topic) that topic's own tasks; in the
 * chat itself (a forum's "General" included) every task of the chat, its topics' too, as a chat-level /stop does.
 */
export function taskScopeOf(sessionKey: string): { chatKey: string; sessionKey?: string } {
  const chatKey = chatKeyOf(sessionKey);
  return /:topic:/.test(sessionKey) ? { chatKey, sessionKey } : { chatKey };
}

const TOPIC_GONE = 'the topic is closed or gone';

/** Why a topic's tasks are paused (`/tasks` shows it): the topic closed or gone, in the platform's words. */
export function topicPausedReason(reason: string): string {
  return `${TOPIC_GONE} (${reason})`;
}

/** A chat, or one topic of it (`threadId`), or every chat of an account (no `chatId`): the tasks a platform event concerns. */
export interface ChatSelection {
  channel: string;
  accountId: string;
  chatId?: string | undefined;
  threadId?: string | undefined;
}

/** Creating, listing and cancelling tasks; the truth in PostgreSQL, firings in BullMQ. */
export class ScheduleService {
  constructor(
    private readonly db: StoreDatabase,
    private readonly schedules: ScheduleQueue,
    private readonly limits: ScheduleLimitsConfig,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  async create(creator: TaskCreator, request: ScheduleRequest & { prompt: string }): Promise<ScheduledTask> {
    const prompt = request.prompt.trim();
    if (prompt === '') throw new ToolError('The task needs a prompt: what to do when it fires.');
    if (prompt.length > PROMPT_MAX_CHARS) throw new ToolError(`The prompt is at most ${PROMPT_MAX_CHARS} characters.`);
    const now = this.clock();
    const spec = parseSchedule(request, this.limits, now);
    const chatKey = chatKeyOf(creator.sessionKey);
    const threadKind = /:topic:/.test(creator.sessionKey) ? 'topic' : /:thread:/.test(creator.sessionKey) ? 'thread' : undefined;
    const task = await insertTaskWithinLimit(
      this.db,
      {
        id: randomBytes(4).toString('hex'),
        chatKey,
        sessionKey: creator.sessionKey,
        agentId: creator.agentId,
        conversation: creator.conversation,
        threadKind,
        creatorId: creator.userId,
        creatorName: creator.userName ?? null,
        prompt,
        kind: spec.kind,
        schedule: spec.schedule,
        timezone: spec.timezone,
        nextRunAt: spec.firstRun,
      },
      this.limits.maxPerChat,
    );
    if (!task) {
      throw new ToolError(`This chat already has ${this.limits.maxPerChat} scheduled tasks, the most allowed; cancel one first (list_tasks, cancel_task or /tasks).`);
    }
    try {
      const firstRun = await this.schedules.arm(task, now);
      if (firstRun.getTime() !== spec.firstRun.getTime()) await setNextRun(this.db, task.id, firstRun);
      this.logger.info({ taskId: task.id, chatKey, kind: task.kind, schedule: task.schedule, timezone: task.timezone }, 'scheduled task created');
      return { ...task, nextRunAt: firstRun };
    } catch (error) {
      await cancelChatTask(this.db, chatKey, task.id).catch(() => undefined);
      throw error;
    }
  }

  /** The tasks `/tasks` shows in this session (see taskScopeOf). */
  list(sessionKey: string): Promise<ScheduledTask[]> {
    const scope = taskScopeOf(sessionKey);
    return listChatTasks(this.db, scope.chatKey, scope.sessionKey);
  }

  /**
   * The bot was removed from a chat (every chat of the account when `chatId` is absent), or a topic was closed or
   * deleted (`threadId`): the active tasks there are paused.
   */
  async pauseChat(chat: ChatSelection, reason: string): Promise<ScheduledTask[]> {
    return pauseAndDisarm({ db: this.db, schedules: this.schedules, logger: this.logger }, chat, reason);
  }

  /**
   * The bot is back in the chat (or the topic reopened): its paused tasks run again from now. Back in the chat, the
   * tasks of a topic closed or gone stay paused until that topic reopens.
   */
  async resumeChat(chat: ChatSelection): Promise<ScheduledTask[]> {
    return resumeAndArm({ db: this.db, schedules: this.schedules, logger: this.logger, clock: this.clock }, chat, chat.threadId === undefined ? TOPIC_GONE : undefined);
  }

  /** Cancels one of the tasks `/tasks` shows in this session; undefined when there is none with that id. */
  async cancel(sessionKey: string, id: string): Promise<ScheduledTask | undefined> {
    const scope = taskScopeOf(sessionKey);
    const task = await cancelChatTask(this.db, scope.chatKey, id.trim(), scope.sessionKey);
    if (!task) return undefined;
    await this.schedules.disarm(task).catch((error: unknown) => this.logger.warn({ err: error, taskId: task.id }, 'could not remove the firing from Redis; the worker skips it'));
    this.logger.info({ taskId: task.id }, 'scheduled task cancelled');
    return task;
  }
}
