import type { FeishuDouble } from '../test/doubles/feishu-double.js';
import type { SlackDouble } from '../test/doubles/slack-double.js';
import type { TelegramDouble } from '../test/doubles/telegram-double.js';

export type Platform = 'telegram' | 'slack' | 'feishu';

/** One inbound request as the platform posts it (signed anew for every attempt, as the platforms do on retries). */
export interface InboundRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** One user in one chat: builds its messages and reads the bot's answers in that chat, in the chat's order. */
export interface SoakChat {
  platform: Platform;
  /** Unique across platforms, for the report. */
  name: string;
  /** The inbound of message `seq` carrying `text`: a function, so each retry is signed at its own time. */
  message(seq: number, text: string): () => InboundRequest;
  /** The bot's messages in this chat (platform id and text), in the order the chat shows them. */
  answers(): SoakAnswer[];
}

/** One message of the bot as a chat shows it. */
export interface SoakAnswer {
  id: string;
  text: string;
}

export const WEBHOOK_SECRET = 'soak-webhook-secret';

export function telegramChats(telegram: TelegramDouble, count: number): SoakChat[] {
  return Array.from({ length: count }, (_, index) => {
    const userId = 700_000 + index;
    return {
      platform: 'telegram' as const,
      name: `telegram:${userId}`,
      message(_seq, text) {
        const update = JSON.stringify(telegram.makeUpdate.privateText(userId, text));
        return () => ({ path: '/webhooks/telegram', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET }, body: update });
      },
      answers: () => telegram.visibleMessages(userId).map((message) => ({ id: String(message.messageId), text: message.text })),
    };
  });
}

export function slackChats(slack: SlackDouble, count: number): SoakChat[] {
  return Array.from({ length: count }, (_, index) => {
    const user = `U0SOAK${String(index).padStart(4, '0')}`;
    const channel = `D${user.slice(1)}`;
    return {
      platform: 'slack' as const,
      name: `slack:${channel}`,
      message(_seq, text) {
        const event = slack.makeEvent.dm(user, text);
        return () => {
          const signed = slack.signedRequest('/webhooks/slack/events', event);
          return { path: signed.path, headers: { ...signed.headers }, body: signed.rawBody };
        };
      },
      answers: () =>
        slack
          .messagesIn(channel)
          .filter((message) => !message.deleted)
          .sort((a, b) => Number(a.ts) - Number(b.ts))
          .map((message) => ({ id: message.ts, text: message.text })),
    };
  });
}

export function feishuChats(feishu: FeishuDouble, count: number): SoakChat[] {
  return Array.from({ length: count }, (_, index) => {
    const chatId = `oc_soak_${index}`;
    const questionPrefix = `om_soak_${index}_`;
    let asked = 0;
    return {
      platform: 'feishu' as const,
      name: `feishu:${chatId}`,
      message(seq, text) {
        asked = Math.max(asked, seq);
        const event = feishu.events.p2pText(text, { chatId, messageId: `${questionPrefix}${seq}`, userOpenId: `ou_soak_${index}` });
        return () => {
          const delivery = feishu.delivery(event);
          return { path: '/webhooks/feishu/events', headers: { 'content-type': 'application/json', ...delivery.headers }, body: delivery.rawBody };
        };
      },
      answers: () =>
        Array.from({ length: asked }, (_, seq) => feishu.repliesTo(`${questionPrefix}${seq + 1}`))
          .flat()
          .filter((message) => !message.deleted)
          .sort((a, b) => Number(a.messageId.replace('om_bot_', '')) - Number(b.messageId.replace('om_bot_', '')))
          .map((message) => ({ id: message.messageId, text: JSON.stringify(message.content) })),
    };
  });
}

/** The token a message carries, found again in its answer ("You said: …"). */
export function tokenOf(chatIndex: number, platform: Platform, seq: number): string {
  return `q${platform[0]}${chatIndex}n${seq}z`;
}

/** `seq` of every token of `chatIndex` found in `text`. */
export function seqsIn(text: string, chatIndex: number, platform: Platform): number[] {
  const pattern = new RegExp(`q${platform[0]}${chatIndex}n(\\d+)z`, 'g');
  return [...text.matchAll(pattern)].map((match) => Number(match[1]));
}
