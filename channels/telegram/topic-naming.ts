import type { Api } from 'grammy';
import type { InboundMessage, SharedHighMarks } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';

/** The state of a topic `/new` opened: still named after its date, or named after its first message. */
const OPENED = 1;
const NAMED = 2;
/** How long a topic opened by `/new` waits for its first message to be named after it. */
const NAMING_TTL_SECONDS = 30 * 24 * 3600;
/** A topic name is 1–128 characters; a short one reads better in the topic list. */
const NAME_MAX_CHARS = 64;

/** The first line of the message, spaces collapsed, clipped; undefined for a command or a message without words. */
export function topicNameFrom(text: string): string | undefined {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ').trim();
  if (line === '' || line.startsWith('/')) return undefined;
  return line.length > NAME_MAX_CHARS ? `${line.slice(0, NAME_MAX_CHARS - 1)}…` : line;
}

/**
 * A topic `/new` opened in a private chat is named "New conversation · <date>" at first, then renamed
 * (`editForumTopic`) after the first message written in it. Which topics wait for their name is shared by every
 * process (a mark that only grows: opened, then named), so one gateway opens the topic and another may rename it.
 */
export function createTopicNaming(api: Api, marks: SharedHighMarks, botId: number, logger: Logger) {
  const keyOf = (chatId: string, threadId: string) => `telegram:${botId}:topic-name:${chatId}:${threadId}`;
  return {
    async opened(chatId: string, threadId: string): Promise<void> {
      await marks.raise(keyOf(chatId, threadId), OPENED, NAMING_TTL_SECONDS);
    },
    /** A user's message in a private-chat topic: the first one with words names a topic that waits for it. */
    async sawMessage(message: InboundMessage): Promise<void> {
      const { chatId, threadId, chatType } = message.conversation;
      const name = topicNameFrom(message.text);
      if (chatType !== 'dm' || threadId === undefined || name === undefined) return;
      const key = keyOf(chatId, threadId);
      if ((await marks.read(key)) !== OPENED) return;
      await marks.raise(key, NAMED, NAMING_TTL_SECONDS);
      try {
        await api.editForumTopic(Number(chatId), Number(threadId), { name });
      } catch (error) {
        logger.warn({ chatId, threadId, error: error instanceof Error ? error.message : String(error) }, 'could not name the topic after its first message');
      }
    },
  };
}

export type TopicNaming = ReturnType<typeof createTopicNaming>;
