import type { Api } from 'grammy';
import type { InlineKeyboardMarkup, Update } from 'grammy/types';
import type { CommandButton, ConversationRef, DeliveryReceipt, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink } from '../shared/index.js';
import type { CallbackQuery } from './approval-buttons.js';
import { targetOf } from './conversation-target.js';
import { toPlatformError } from './errors.js';
import { normalizeUpdate, type BotIdentity } from './inbound.js';
import type { MessageIdWatermark } from './message-ids.js';

/** Callback data of a command button: this prefix, then the command (`cmd:/model openai:gpt-4o`). */
const PREFIX = 'cmd:';
/** Telegram's limit on `callback_data` (https://core.telegram.org/bots/api#inlinekeyboardbutton). */
const CALLBACK_DATA_BYTES = 64;

/** The command a button carries: its own, or its short form when that would not fit `callback_data`. */
function dataOf(button: CommandButton): string {
  const full = `${PREFIX}${button.command}`;
  return Buffer.byteLength(full) <= CALLBACK_DATA_BYTES || !button.shortCommand ? full : `${PREFIX}${button.shortCommand}`;
}

/** A plain-text notice with an inline keyboard, one button a row (model names are long on a phone). */
export async function sendCommandButtons(deps: { api: Api; watermark: MessageIdWatermark }, to: ConversationRef, text: string, buttons: CommandButton[]): Promise<DeliveryReceipt> {
  const { chat_id: chatId, ...thread } = targetOf(to);
  const keyboard: InlineKeyboardMarkup = { inline_keyboard: buttons.map((button) => [{ text: button.label, callback_data: dataOf(button) }]) };
  try {
    const message = await deps.api.sendMessage(chatId, text, { ...thread, reply_markup: keyboard });
    deps.watermark.saw(chatId, message.message_id);
    return { messageIds: [String(message.message_id)] };
  } catch (error) {
    throw toPlatformError(error, 'sendMessage');
  }
}

export function isCommandClick(query: CallbackQuery): boolean {
  return query.data?.startsWith(PREFIX) === true;
}

/**
 * A click on a command button: the command goes to the sink as if the one who clicked had typed it in the button's
 * chat and topic (access control, the session, the answer: all as for a typed command), once per click.
 */
export async function answerCommandClick(api: Api, identity: BotIdentity, query: CallbackQuery, sink: InboundSink, logger: Logger): Promise<void> {
  const message = query.message ? commandMessageOf(query, identity) : undefined;
  const outcome = message ? await sanitizingSink(sink)(message) : undefined;
  const text = !message ? 'This button is no longer active.' : outcome?.kind === 'rejected' ? 'That did not go through. Please try again in a moment.' : undefined;
  await api
    .answerCallbackQuery(query.id, text ? { text } : {})
    .catch((error: unknown) => logger.warn({ err: error }, 'answerCallbackQuery failed'));
}

function commandMessageOf(query: CallbackQuery, identity: BotIdentity) {
  const source = query.message!;
  const update = {
    update_id: 0,
    message: {
      message_id: source.message_id,
      date: Math.floor(Date.now() / 1000),
      chat: source.chat,
      from: { ...query.from, is_bot: false },
      text: query.data!.slice(PREFIX.length),
      ...(source.message_thread_id !== undefined ? { message_thread_id: source.message_thread_id } : {}),
      ...(source.is_topic_message ? { is_topic_message: true } : {}),
    },
  } as Update;
  const message = normalizeUpdate(update, identity);
  if (!message) return undefined;
  const { accountId, chatId } = message.conversation;
  // every click is its own command (the message id is the list's, shared by all its buttons)
  return { ...message, dedupeKey: `telegram:${accountId}:${chatId}:click:${query.id}`, addressed: true };
}
