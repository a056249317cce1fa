import type { ConversationRef, DeliveryReceipt } from '../../src/core/index.js';
import { renderAnswer, renderText } from './format.js';
import type { ChannelMemory } from './inbound-pipeline.js';
import type { MessagesApi, OutgoingMessage } from './messages-api.js';

export interface FeishuOutbound {
  send(to: ConversationRef, markdown: string): Promise<DeliveryReceipt>;
  sendNotice(to: ConversationRef, text: string): Promise<DeliveryReceipt>;
  /** Already rendered messages, in order, each a reply to the triggering message. */
  deliver(to: ConversationRef, messages: OutgoingMessage[]): Promise<DeliveryReceipt>;
}

/**
 * Every answer is a reply (`im.message.reply`) to the message that triggered the turn, later chunks
 * too, so the answer stays attached to the question in a busy group. The ids of the bot's messages are
 * remembered: a user replying to one of them addresses the bot.
 */
export function createOutbound(api: MessagesApi, memory: ChannelMemory): FeishuOutbound {
  async function deliver(to: ConversationRef, messages: OutgoingMessage[]): Promise<DeliveryReceipt> {
    const messageIds: string[] = [];
    for (const message of messages) {
      const id = await api.reply(to.messageId, message);
      messageIds.push(id);
      await memory.rememberBotMessage(id);
    }
    return { messageIds };
  }
  return {
    send: (to, markdown) => deliver(to, renderAnswer(markdown)),
    sendNotice: (to, text) => deliver(to, renderText(text)),
    deliver,
  };
}
