import type { InboundMessage } from '../../src/core/inbound-message.js';

let counter = 0;

/** A normalized inbound message for queue-level tests. */
export function inboundMessage(overrides: Partial<InboundMessage> & { text?: string; chatType?: 'dm' | 'group' } = {}): InboundMessage {
  counter += 1;
  const chatType = overrides.chatType ?? 'dm';
  const { chatType: _ignored, ...rest } = overrides;
  return {
    conversation: { channel: 'telegram', accountId: '1', chatId: chatType === 'dm' ? '42' : '-100', chatType, messageId: String(counter) },
    dedupeKey: `telegram:1:${chatType === 'dm' ? '42' : '-100'}:${counter}:${Math.random().toString(36).slice(2)}`,
    sender: { id: '42', name: 'Ada' },
    text: `message ${counter}`,
    sentAt: Date.now(),
    addressed: true,
    agentId: 'main',
    ...rest,
  };
}
