import { createHash } from 'node:crypto';
import type { ConversationRef, DeliveryProgress, DeliveryReceipt, SendHint } from '../../src/core/index.js';
import { deliverParts } from '../shared/index.js';
import { renderAnswer, renderText } from './format.js';
import type { ChannelMemory } from './inbound-pipeline.js';
import type { MessagesApi, OutgoingMessage } from './messages-api.js';

/** How long Feishu keeps a reply's `uuid`: a repeat within it is answered with the first message, not posted. */
export const UUID_WINDOW_MS = 60 * 60 * 1000;

/** A message already in the chat that becomes the first part (a live reply's card), and how to put a part into it. */
export interface FirstPartInPlace {
  messageId: string;
  edit(message: OutgoingMessage): Promise<void>;
}

export interface FeishuOutbound {
  /** Replies with the answer's messages in order, skipping the ones `progress` says were delivered (rendering is deterministic). */
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  /**
   * Already rendered messages, in order, each a reply to the triggering message under a `uuid` derived from the
   * delivery and the part. With `progress`, the first `progress.delivered.length` messages are skipped and a part
   * in doubt is simply sent again (Feishu keeps one); with `first`, message 0 is edited into that message.
   */
  deliver(to: ConversationRef, messages: OutgoingMessage[], progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<DeliveryReceipt>;
}

/** The reply `uuid` of part `part` of delivery `key`: the same for every attempt and holder (Feishu allows 50 characters). */
export function partUuid(key: string, part: number): string {
  const hex = createHash('sha256').update(`${key}#${part}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Every answer is a reply (`im.message.reply`) to the message that triggered the turn, later chunks
 * too, so the answer stays attached to the question in a busy group. The ids of the bot's messages are
 * remembered: a user replying to one of them addresses the bot.
 */
export function createOutbound(api: MessagesApi, memory: ChannelMemory): FeishuOutbound {
  async function deliver(to: ConversationRef, messages: OutgoingMessage[], progress?: DeliveryProgress, first?: FirstPartInPlace): Promise<DeliveryReceipt> {
    const key = progress?.key;
    const reply = async (message: OutgoingMessage, index: number): Promise<string> => {
      const id = await api.reply(to.messageId, message, key !== undefined ? partUuid(key, index) : undefined);
      await memory.rememberBotMessage(id);
      return id;
    };
    const messageIds = await deliverParts(messages, progress, {
      hint: (_message, index): SendHint => (index === 0 && first ? { edit: first.messageId } : {}),
      async send(message, index) {
        if (index !== 0 || !first) return reply(message, index);
        await first.edit(message);
        return first.messageId;
      },
      async settle(message, index, doubt) {
        // an edit of a message already there: editing again is harmless
        if (typeof doubt.hint.edit === 'string') {
          await (first ? first.edit(message) : api.patch(doubt.hint.edit, message.content));
          return { id: doubt.hint.edit, resolution: 'found' };
        }
        // the same uuid again: within the hour Feishu answers with the message the dead worker sent, if it did
        return { id: await reply(message, index), resolution: Date.now() - doubt.at < UUID_WINDOW_MS ? 'idempotent_resend' : 'unverified_resend' };
      },
    });
    return { messageIds };
  }
  return {
    send: (to, markdown, progress) => deliver(to, renderAnswer(markdown), progress),
    sendNotice: (to, text, progress) => deliver(to, renderText(text), progress),
    deliver,
  };
}
