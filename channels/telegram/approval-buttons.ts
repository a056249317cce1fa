import type { Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import {
  type ApprovalPrompt,
  type ApprovalSink,
  type ConversationRef,
  type DeliveryProgress,
} from '../../src/core/index.js';
import { APPROVAL_BUTTONS, approvalPromptText, decodeApprovalAction, encodeApprovalAction } from '../../src/approvals/approval-actions.js';
import type { Logger } from '../../src/observability/logger.js';
import { targetOf } from './conversation-target.js';
import { deliverParts } from '../shared/index.js';
import { toPlatformError } from './errors.js';
import type { MessageIdWatermark } from './message-ids.js';
import type { CallSignal } from './outbound.js';
import { TELEGRAM_SEND_TIMEOUTS } from './send-timeouts.js';
import { sameText, type SentProbe } from './sent-probe.js';

/** What the channel reads of a `callback_query` (https://core.telegram.org/bots/api#callbackquery), checked in update-schema.ts. */
export interface CallbackQuery {
  id: string;
  from: { id: number; first_name?: string; last_name?: string; username?: string };
  data?: string;
  /** The bot's message the button is under: where a command button's command acts. */
  message?: { message_id: number; chat: { id: number; type: string; title?: string }; message_thread_id?: number; is_topic_message?: boolean };
}

function keyboardOf(prompt: ApprovalPrompt): InlineKeyboardMarkup {
  // one button a row: "Allow for this session" does not fit beside the others on a phone
  return { inline_keyboard: APPROVAL_BUTTONS.map(({ choice, label }) => [{ text: label, callback_data: encodeApprovalAction(prompt.approvalId, choice) }]) };
}

/** The approval request as a plain message with an inline keyboard; plain text, so no argument can break the markup. */
export async function sendApprovalPrompt(
  deps: { api: Api; watermark: MessageIdWatermark; probe: SentProbe },
  to: ConversationRef,
  prompt: ApprovalPrompt,
  progress?: DeliveryProgress,
): Promise<string> {
  const { api, watermark, probe } = deps;
  const { chat_id: chatId, ...thread } = targetOf(to);
  const text = approvalPromptText(prompt);
  const keyboard = keyboardOf(prompt);
  // a recorded request's sendMessage is aborted as an answer's is, and its intent records the deadline
  const timeoutMs = TELEGRAM_SEND_TIMEOUTS.messageMs;
  const [messageId] = await deliverParts([text], progress, {
    hint: () => watermark.hint(to),
    ...(progress ? { sendTimeoutMs: timeoutMs } : {}),
    async send() {
      try {
        const signal = (progress ? AbortSignal.timeout(timeoutMs) : undefined) as CallSignal;
        const message = await api.sendMessage(chatId, text, { ...thread, reply_markup: keyboard }, signal);
        watermark.saw(chatId, message.message_id);
        return String(message.message_id);
      } catch (error) {
        throw toPlatformError(error, 'sendMessage');
      }
    },
    async settle(_text, _index, doubt) {
      return probe.settle(to, doubt.hint, (message) => sameText(message.text, text), keyboard);
    },
  });
  return messageId!;
}

/** The request's text with the decision below it, and no keyboard left to click. */
export async function settleApprovalPrompt(api: Api, to: ConversationRef, messageId: string, prompt: ApprovalPrompt, outcome: string): Promise<void> {
  const { chat_id: chatId } = targetOf(to);
  try {
    await api.editMessageText(chatId, Number(messageId), `${approvalPromptText(prompt)}\n\n${outcome}`, { reply_markup: { inline_keyboard: [] } });
  } catch (error) {
    throw toPlatformError(error, 'editMessageText');
  }
}

/**
 * A button click: the answer goes to the sink, and Telegram's spinner is stopped with a short text — an alert
 * for a refusal (not the requester, already answered), so the one who clicked sees why nothing happened.
 */
export async function answerCallbackQuery(api: Api, query: CallbackQuery, sink: ApprovalSink | undefined, logger: Logger): Promise<void> {
  const action = query.data ? decodeApprovalAction(query.data) : undefined;
  if (!action || !sink) {
    await api.answerCallbackQuery(query.id, { text: 'This button is no longer active.' }).catch(() => undefined);
    return;
  }
  const name = query.from.first_name ?? query.from.username;
  const result = await sink({ ...action, userId: String(query.from.id), ...(name ? { userName: name } : {}) });
  await api
    .answerCallbackQuery(query.id, { text: result.text, show_alert: result.kind === 'refused' })
    .catch((error: unknown) => logger.warn({ err: error }, 'answerCallbackQuery failed'));
}
