import { describe, expect, it } from 'vitest';
import { chatKeyOfSessionKey, chatSessionKeyOf, sessionKeyOf } from '../../src/core/session-key.js';
import { inboundMessage } from '../support/messages.js';

describe('the chat of a session key (where a chat-wide /model choice is kept)', () => {
  it('is the key without its thread or topic, the same as the chat’s own session key', () => {
    const group = inboundMessage({ chatType: 'group' });
    const cases = [
      { ...group, conversation: { ...group.conversation, threadId: '77' }, threadKind: 'topic' as const },
      { ...group, conversation: { ...group.conversation, channel: 'slack' as const, chatId: 'C1', threadId: '1700000000.000100' }, threadKind: 'thread' as const },
      { ...inboundMessage(), conversation: { ...inboundMessage().conversation, threadId: '5' }, threadKind: 'topic' as const },
      group,
      inboundMessage(),
    ];
    for (const message of cases) expect(chatKeyOfSessionKey(sessionKeyOf(message))).toBe(chatSessionKeyOf(message));
    expect(chatKeyOfSessionKey('agent:main:slack:T1:dm:U1:thread:1.2')).toBe('agent:main:slack:T1:dm:U1');
    expect(chatKeyOfSessionKey('agent:main:telegram:1:group:-100:topic:77')).toBe('agent:main:telegram:1:group:-100');
    expect(chatKeyOfSessionKey('agent:main:feishu:app:group:oc_1')).toBe('agent:main:feishu:app:group:oc_1');
  });
});
