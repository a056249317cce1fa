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
  /** For a doubled answer: the platform calls on this chat around it, for a closer look (Telegram only). */
  trace?(answerIds: string[]): TracedCall[];
}

/** A platform call as a trace shows it: when (epoch ms), how long it took, and what it carried. */
export interface TracedCall {
  method: string;
  at: number;
  tookMs?: number;
  abandoned?: boolean;
  failed?: boolean;
  messageId?: unknown;
  text?: string;
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
      trace: (answerIds) => telegramTrace(telegram, userId, answerIds),
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

/**
 * The Telegram calls on one chat from 10 s before a doubled answer's first send to 5 s after its last: the sends
 * (text), the probes and edits (message id), when each came and how long the double took with it.
 */
function telegramTrace(telegram: TelegramDouble, userId: number, answerIds: string[]): TracedCall[] {
  const onChat = telegram.calls.filter((call) => String(call.params.chat_id) === String(userId));
  const answers = telegram.visibleMessages(userId).filter((message) => answerIds.includes(String(message.messageId)));
  const sends = onChat.filter((call) => call.method === 'sendMessage' && answers.some((answer) => answer.text === call.params.text));
  if (sends.length === 0) return [];
  const from = Math.min(...sends.map((call) => call.at)) - 10_000;
  const to = Math.max(...sends.map((call) => call.at)) + 5_000;
  return onChat
    .filter((call) => call.at >= from && call.at <= to && call.method !== 'sendChatAction')
    .map((call) => ({
      method: call.method,
      at: call.at,
      ...(call.answeredAt !== undefined ? { tookMs: call.answeredAt - call.at } : {}),
      ...(call.abandoned ? { abandoned: true } : {}),
      ...(call.failed ? { failed: true } : {}),
      ...(call.params.message_id !== undefined ? { messageId: call.params.message_id } : {}),
      ...(typeof call.params.text === 'string' ? { text: call.params.text.slice(0, 40) } : {}),
    }));
}
