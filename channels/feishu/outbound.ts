import type { ConversationRef, DeliveryProgress, DeliveryReceipt } from '../../src/core/index.js';
import { renderAnswer, renderText } from './format.js';
import type { ChannelMemory } from './inbound-pipeline.js';
import type { MessagesApi, OutgoingMessage } from './messages-api.js';

export interface FeishuOutbound {
  /** Replies with the answer's messages in order, skipping the ones `progress` says were delivered (rendering is deterministic). */
  send(to: ConversationRef, markdown: string, progress?: DeliveryProgress): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string): Promise<DeliveryReceipt>;
  /**
   * Already rendered messages, in order, each a reply to the triggering message. With `progress`, the first
   * `progress.delivered.length` messages are skipped and `onDelivered` learns of each message sent.
   */
  deliver(to: ConversationRef, messages: OutgoingMessage[], progress?: DeliveryProgress): Promise<DeliveryReceipt>;
}

/**
 * Every answer is a reply (`im.message.reply`) to the message that triggered the turn, later chunks
 * too, so the answer stays attached to the question in a busy group. The ids of the bot's messages are
 * remembered: a user replying to one of them addresses the bot.
 */
export function createOutbound(api: MessagesApi, memory: ChannelMemory): FeishuOutbound {
  async function deliver(to: ConversationRef, messages: OutgoingMessage[], progress?: DeliveryProgress): Promise<DeliveryReceipt> {
    const messageIds = [...(progress?.delivered ?? [])];
    for (const message of messages.slice(messageIds.length)) {
      const id = await api.reply(to.messageId, message);
      messageIds.push(id);
      await memory.rememberBotMessage(id);
      await progress?.onDelivered([...messageIds]);
    }
    return { messageIds };
  }
  return {
    send: (to, markdown, progress) => deliver(to, renderAnswer(markdown), progress),
    sendNotice: (to, text) => deliver(to, renderText(text)),
    deliver,
  };
}
