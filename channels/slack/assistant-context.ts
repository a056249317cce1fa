// Bolt's own reading of assistant payloads, from its module: Bolt's index would load all of Bolt (its receivers, Express)
import { extractThreadInfo, isAssistantMessage } from '@slack/bolt/dist/Assistant.js';
import type { AssistantThreadContext } from '@slack/bolt/dist/AssistantThreadContextStore.js';
import type { ChannelNotes } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';

/** How long a thread's context is kept after Slack last sent it (a thread revisited later gets a new one). */
export const ASSISTANT_CONTEXT_TTL_SECONDS = 7 * 24 * 60 * 60;

type BoltPayload = Parameters<typeof isAssistantMessage>[0];

/**
 * A message in an assistant thread (Bolt's `isAssistantMessage`: a thread of the app's DM, a plain or file
 * message), as Bolt's `Assistant` middleware tells them apart.
 */
export function isAssistantThreadMessage(event: { channel?: string; channel_type?: string; thread_ts?: string; subtype?: string }): boolean {
  if (event.channel_type === undefined || event.thread_ts === undefined) return false;
  return isAssistantMessage(event as unknown as BoltPayload);
}

/** The thread and the context of an `assistant_thread_started` / `…_context_changed` event (Bolt's `extractThreadInfo`). */
export function assistantThreadOf(event: object): { channelId: string; threadTs: string; context: AssistantThreadContext } {
  return extractThreadInfo(event as unknown as Parameters<typeof extractThreadInfo>[0]);
}

export interface AssistantContextStore {
  save(channelId: string, threadTs: string, context: AssistantThreadContext): Promise<void>;
  get(channelId: string, threadTs: string): Promise<AssistantThreadContext | undefined>;
}

/**
 * Bolt's thread context store, kept where every gateway process reads it (Redis in the service), by thread.
 * (Bolt's default store writes it into the greeting's metadata and reads the thread back on every message:
 * two Web API calls on the way to the acknowledgement, and one context per process.)
 */
export function createAssistantContextStore(notes: ChannelNotes, teamId: string, logger: Logger): AssistantContextStore {
  const keyOf = (channelId: string, threadTs: string) => `slack-assistant-context:${teamId}:${channelId}:${threadTs}`;
  return {
    async save(channelId, threadTs, context) {
      await notes.keepText(keyOf(channelId, threadTs), JSON.stringify(context), ASSISTANT_CONTEXT_TTL_SECONDS);
    },
    async get(channelId, threadTs) {
      try {
        const text = await notes.textOf(keyOf(channelId, threadTs));
        return text === undefined ? undefined : (JSON.parse(text) as AssistantThreadContext);
      } catch (error) {
        logger.warn({ channel: channelId, error: String(error) }, 'could not read the assistant thread context; the message goes without it');
        return undefined;
      }
    },
  };
}

/**
 * The one line of context a message in the thread carries: the channel the person views beside it, by name when
 * the bot may know it (conversations.info), else by id. Nothing of that channel's content is read.
 */
export async function contextNoteOf(context: AssistantThreadContext | undefined, channelName: (channel: string) => Promise<string | undefined>): Promise<string | undefined> {
  const viewed = context?.channel_id;
  if (!viewed) return undefined;
  // a DM or group DM the person views: its id says nothing useful and its name is no name
  if (!/^[CG]/.test(viewed)) return undefined;
  const name = await channelName(viewed);
  return name ? `The user is viewing the Slack channel #${name} (${viewed}) beside this conversation` : `The user is viewing the Slack channel ${viewed} beside this conversation`;
}
