import { createHash, randomUUID } from 'node:crypto';

/** The headers Feishu signs a delivery with: `algorithm`(timestamp + nonce + secret + body). */
export function larkSignature(algorithm: 'sha256' | 'sha1', rawBody: string, secret: string, atMs: number): Record<string, string> {
  const timestamp = String(Math.floor(atMs / 1000));
  const nonce = randomUUID();
  const signature = createHash(algorithm).update(timestamp + nonce + secret + rawBody).digest('hex');
  return { 'x-lark-request-timestamp': timestamp, 'x-lark-request-nonce': nonce, 'x-lark-signature': signature };
}

export interface EventOptions {
  chatId?: string;
  userOpenId?: string;
  messageId?: string;
  parentId?: string;
  senderType?: 'user' | 'app';
  /** Extra `mentions` entries beyond the ones a builder adds. */
  mentions?: Array<{ key: string; openId: string; name: string }>;
}

/** Builders of the schema 2.0 envelopes Feishu posts (plain; wrap with `encrypt()`); fresh event and message ids each call. */
export function createFeishuEvents(identity: { appId: string; botOpenId: string; botName: string; verificationToken: string }) {
  let sequence = 0;
  const mention = (key: string, openId: string, name: string) => ({ key, id: { open_id: openId, union_id: `on_${openId}`, user_id: openId }, name, tenant_key: 'tenant-double' });
  function message(chatType: 'p2p' | 'group', messageType: string, content: unknown, options: EventOptions = {}) {
    sequence += 1;
    return {
      schema: '2.0',
      header: { event_id: `event-${randomUUID()}`, event_type: 'im.message.receive_v1', create_time: String(Date.now()), token: identity.verificationToken, app_id: identity.appId, tenant_key: 'tenant-double' },
      event: {
        sender: { sender_id: { open_id: options.userOpenId ?? 'ou_user_1', union_id: 'on_user_1', user_id: 'user_1' }, sender_type: options.senderType ?? 'user', tenant_key: 'tenant-double' },
        message: {
          message_id: options.messageId ?? `om_user_${sequence}_${randomUUID().slice(0, 8)}`,
          ...(options.parentId ? { parent_id: options.parentId, root_id: options.parentId } : {}),
          create_time: String(Date.now()),
          chat_id: options.chatId ?? (chatType === 'p2p' ? 'oc_p2p_chat' : 'oc_group_chat'),
          chat_type: chatType,
          message_type: messageType,
          content: typeof content === 'string' ? content : JSON.stringify(content),
          mentions: (options.mentions ?? []).map((entry) => mention(entry.key, entry.openId, entry.name)),
        },
      },
    };
  }
  const botMention = { key: '@_user_1', openId: identity.botOpenId, name: identity.botName };
  return {
    message,
    p2pText: (text: string, options: EventOptions = {}) => message('p2p', 'text', { text }, options),
    groupText: (text: string, options: EventOptions = {}) => message('group', 'text', { text }, options),
    /** `@_user_1 text`, `@_user_1` being the bot. */
    groupMention: (text: string, options: EventOptions = {}) => message('group', 'text', { text: `@_user_1 ${text}` }, { ...options, mentions: [botMention, ...(options.mentions ?? [])] }),
    /** A rich-text message; `mentionBot` adds the bot as `@_user_1` (put `{tag: 'at', user_id: '@_user_1'}` in the content). */
    post: (post: { title?: string; content: unknown[][] }, options: EventOptions & { chatType?: 'p2p' | 'group'; mentionBot?: boolean } = {}) =>
      message(options.chatType ?? 'group', 'post', post, { ...options, mentions: [...(options.mentionBot ? [botMention] : []), ...(options.mentions ?? [])] }),
    urlVerification: (challenge: string) => ({ challenge, token: identity.verificationToken, type: 'url_verification' }),
    /** A click on a card button (schema 2.0 `card.action.trigger`), carrying the button's `value`; post to the cards route. */
    cardAction: (value: Record<string, unknown>, options: { userOpenId?: string; messageId: string; chatId?: string }) => ({
      schema: '2.0',
      header: { event_id: `event-${randomUUID()}`, event_type: 'card.action.trigger', create_time: String(Date.now()), token: identity.verificationToken, app_id: identity.appId, tenant_key: 'tenant-double' },
      event: {
        operator: { tenant_key: 'tenant-double', user_id: 'user_1', open_id: options.userOpenId ?? 'ou_user_1', union_id: 'on_user_1' },
        token: `c-${randomUUID()}`,
        action: { value, tag: 'button' },
        host: 'im_message',
        context: { open_message_id: options.messageId, open_chat_id: options.chatId ?? 'oc_p2p_chat' },
      },
    }),
  };
}

