import { randomUUID } from 'node:crypto';
import { BotError } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { callFeishu } from './api-call.js';
import type { LazyClient } from './client.js';

/** A message as the IM API takes it: `content` is the JSON string of the type's content object. */
export interface OutgoingMessage {
  msgType: 'text' | 'post' | 'interactive' | 'image' | 'file';
  content: string;
}

export type MessagesApi = ReturnType<typeof createMessagesApi>;

/** The handful of Open API calls the channel makes, each through the SDK's typed client and `callFeishu`. */
export function createMessagesApi(client: LazyClient, logger: Logger) {
  return {
    /**
     * `im.message.reply`; the `uuid` makes Feishu send it at most once within an hour (a repeat is answered
     * with the first message), so a lost answer can be retried safely. Without one, a fresh uuid covers the
     * retries of this call only.
     */
    async reply(messageId: string, message: OutgoingMessage, uuid: string = randomUUID()): Promise<string> {
      const answer = await callFeishu(logger, { method: 'im.message.reply', idempotent: true }, async () =>
        (await client()).im.message.reply({ path: { message_id: messageId }, data: { msg_type: message.msgType, content: message.content, uuid } }),
      );
      const id = answer.data?.message_id;
      if (!id) throw new BotError('platform', 'Feishu im.message.reply answered without a message_id');
      return id;
    },

    /** `im.message.patch`: replaces a card's content (cards only, and only shared ones: `update_multi`). */
    async patch(messageId: string, content: string): Promise<void> {
      await callFeishu(logger, { method: 'im.message.patch', idempotent: true }, async () =>
        (await client()).im.message.patch({ path: { message_id: messageId }, data: { content } }),
      );
    },

    async remove(messageId: string): Promise<void> {
      await callFeishu(logger, { method: 'im.message.delete', idempotent: true }, async () => (await client()).im.message.delete({ path: { message_id: messageId } }));
    },

    async addReaction(messageId: string, emojiType: string): Promise<string> {
      const answer = await callFeishu(logger, { method: 'im.messageReaction.create', idempotent: false }, async () =>
        (await client()).im.messageReaction.create({ path: { message_id: messageId }, data: { reaction_type: { emoji_type: emojiType } } }),
      );
      const id = answer.data?.reaction_id;
      if (!id) throw new BotError('platform', 'Feishu im.messageReaction.create answered without a reaction_id');
      return id;
    },

    async removeReaction(messageId: string, reactionId: string): Promise<void> {
      await callFeishu(logger, { method: 'im.messageReaction.delete', idempotent: true }, async () =>
        (await client()).im.messageReaction.delete({ path: { message_id: messageId, reaction_id: reactionId } }),
      );
    },
  };
}
