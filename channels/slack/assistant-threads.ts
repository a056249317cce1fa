import type { AssistantSettings } from '../../src/config/app-config.js';
import type { ChannelNotes, ConversationRef } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import type { BoundaryOutcome } from '../shared/index.js';
import { assistantThreadOf, contextNoteOf, createAssistantContextStore } from './assistant-context.js';
import { slackErrorCode } from './errors.js';
import type { SlackOutbound } from './outbound.js';
import { checkAssistantThreadEvent } from './payload-schemas.js';
import { withRateLimitRetry } from './rate-limit.js';
import type { SlackClients } from './web-clients.js';

export const ASSISTANT_THREAD_STARTED = 'assistant_thread_started';
export const ASSISTANT_THREAD_CONTEXT_CHANGED = 'assistant_thread_context_changed';

export const DEFAULT_GREETING = 'Hi! How can I help?';
export const DEFAULT_PROMPTS: ReadonlyArray<{ title: string; message: string }> = [
  { title: 'What can you do?', message: 'What can you help me with? Give me a short overview.' },
  { title: 'Explain something', message: 'Explain a concept to me simply, with an example. The concept: ' },
  { title: 'Draft a message', message: 'Help me draft a short, friendly message to my team about: ' },
];

/** A thread is greeted once, however often Slack delivers its start and whichever gateway process gets it. */
const GREETED_TTL_SECONDS = 24 * 60 * 60;

export interface AssistantThreads {
  /** Whether `type` is an assistant thread event (started, context changed). */
  handles(type: string): boolean;
  /**
   * The event, before the acknowledgement: the thread's context is kept and the thread claimed for its greeting;
   * the greeting and the suggested prompts are posted after it, in the background. Nothing for the sink.
   */
  event(event: unknown): Promise<BoundaryOutcome | undefined>;
  /** The context line for a message in the thread (the channel the person views), when Slack sent one. */
  contextNote(channelId: string, threadTs: string): Promise<string | undefined>;
  /** The thread's title in Slack's history of assistant threads (assistant.threads.setTitle); a refusal is logged. */
  setTitle(to: ConversationRef, title: string): Promise<void>;
  /** The greetings under way, settled. */
  settled(): Promise<void>;
  /** Who may be greeted (whether a DM from them would be admitted); unset: everyone. */
  setGreetingCheck(check: (userId: string) => Promise<boolean>): void;
}

/**
 * Slack's AI app surface (CONTRACT §20), in the roles of Bolt's `Assistant` middleware: `threadStarted` greets and
 * suggests prompts, `threadContextChanged` saves the context, `userMessage` is the ordinary inbound path (which asks
 * `contextNote` for the line its message carries). Run on our inbound path, which acknowledges first and enqueues.
 */
export function createAssistantThreads(options: {
  clients: SlackClients;
  outbound: SlackOutbound;
  notes: ChannelNotes;
  teamId: string;
  settings: AssistantSettings | undefined;
  channelName: (channel: string) => Promise<string | undefined>;
  logger: Logger;
}): AssistantThreads {
  const { clients, outbound, notes, teamId, logger } = options;
  const contexts = createAssistantContextStore(notes, teamId, logger);
  const greeting = options.settings?.greeting ?? DEFAULT_GREETING;
  const prompts = options.settings?.prompts ?? DEFAULT_PROMPTS;
  const underWay = new Set<Promise<void>>();
  let mayGreet: ((userId: string) => Promise<boolean>) | undefined;

  async function greet(channelId: string, threadTs: string): Promise<void> {
    const to: ConversationRef = { channel: 'slack', accountId: teamId, chatId: channelId, chatType: 'dm', threadId: threadTs, messageId: threadTs };
    try {
      await outbound.send(to, greeting);
      if (prompts.length > 0) {
        await withRateLimitRetry(() => clients.repeatable.assistant.threads.setSuggestedPrompts({ channel_id: channelId, thread_ts: threadTs, prompts: [...prompts] }));
      }
      logger.debug({ channel: channelId, threadTs, prompts: prompts.length }, 'assistant thread greeted');
    } catch (error) {
      logger.warn({ channel: channelId, threadTs, error: slackErrorCode(error) ?? String(error) }, 'the assistant thread greeting failed');
    }
  }

  return {
    handles: (type) => type === ASSISTANT_THREAD_STARTED || type === ASSISTANT_THREAD_CONTEXT_CHANGED,
    async event(event) {
      const checked = checkAssistantThreadEvent(event);
      if (!checked.ok) return { kind: 'invalid', reason: `/event${checked.reason}` };
      const { channelId, threadTs, context } = assistantThreadOf(checked.value);
      await contexts.save(channelId, threadTs, context);
      if (checked.value.type !== ASSISTANT_THREAD_STARTED) return undefined;
      // someone the bot would not answer (DM_POLICY, allowlist, pairing) is not greeted either
      const userId = checked.value.assistant_thread.user_id;
      if (mayGreet && !(userId !== undefined && (await mayGreet(userId)))) {
        logger.debug({ channel: channelId, threadTs, user: userId }, 'assistant thread not greeted: a DM from this user would not be admitted');
        return undefined;
      }
      if (!(await notes.claim(`slack-assistant-greeted:${teamId}:${channelId}:${threadTs}`, GREETED_TTL_SECONDS))) return { kind: 'duplicate' };
      const greeted = greet(channelId, threadTs).finally(() => underWay.delete(greeted));
      underWay.add(greeted);
      return undefined;
    },
    async contextNote(channelId, threadTs) {
      return contextNoteOf(await contexts.get(channelId, threadTs), options.channelName);
    },
    async setTitle(to, title) {
      if (to.chatType !== 'dm' || to.threadId === undefined) return;
      try {
        await withRateLimitRetry(() => clients.repeatable.assistant.threads.setTitle({ channel_id: to.chatId, thread_ts: to.threadId!, title }));
      } catch (error) {
        // a DM thread outside the assistant surface (an app without it) has no title to set
        logger.debug({ channel: to.chatId, threadTs: to.threadId, error: slackErrorCode(error) ?? String(error) }, 'assistant thread title not set');
      }
    },
    async settled() {
      await Promise.allSettled([...underWay]);
    },
    setGreetingCheck(check) {
      mayGreet = check;
    },
  };
}
