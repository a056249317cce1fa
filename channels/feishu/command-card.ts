import type { CommandButton, ConversationRef, DeliveryReceipt, InboundMessage, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink } from '../shared/index.js';
import type { FeishuIdentity } from './inbound.js';
import type { FeishuOutbound } from './outbound.js';

/**
 * A button's value: the command, and the kind of chat the card is in (a card callback names the chat, not its
 * kind; the session of a DM is its user's).
 */
interface CommandValue {
  command: string;
  chat_type: 'dm' | 'group';
}

/** The notice as an interactive card: the text, then a button per command. */
export async function sendCommandButtons(outbound: FeishuOutbound, to: ConversationRef, text: string, buttons: CommandButton[]): Promise<DeliveryReceipt> {
  const content = JSON.stringify({
    config: { wide_screen_mode: true },
    elements: [
      { tag: 'div', text: { tag: 'plain_text', content: text } },
      {
        tag: 'action',
        actions: buttons.map((button) => ({
          tag: 'button',
          text: { tag: 'plain_text', content: button.label },
          type: 'default',
          value: { command: button.command, chat_type: to.chatType } satisfies CommandValue,
        })),
      },
    ],
  });
  return outbound.deliver(to, [{ msgType: 'interactive', content }]);
}

interface CardAction {
  operator?: { open_id?: unknown };
  open_id?: unknown;
  open_chat_id?: unknown;
  open_message_id?: unknown;
  token?: unknown;
  action?: { value?: unknown };
  context?: { open_chat_id?: unknown; open_message_id?: unknown };
}

/** Whether a card callback is a click on a command button (its value carries a command). */
export function isCommandAction(event: unknown): boolean {
  return typeof commandValueOf(event as CardAction)?.command === 'string';
}

/**
 * A click (schema 2.0 `card.action.trigger`, or the older form with `open_id` at the top): the command goes to the
 * sink as if the one who clicked had typed it in the card's chat, once per click. The answer is the callback's: a
 * toast only when the command could not be taken.
 */
export async function answerCommandAction(event: unknown, identity: FeishuIdentity, sink: InboundSink, logger: Logger): Promise<object | undefined> {
  const message = commandMessageOf(event as CardAction, identity);
  if (!message) return { toast: { type: 'error', content: 'This button is no longer active.' } };
  const outcome = await sanitizingSink(sink)(message);
  if (outcome.kind !== 'rejected') return undefined;
  logger.warn({ reason: outcome.reason }, 'feishu command button click not accepted');
  return { toast: { type: 'error', content: 'That did not go through. Please try again in a moment.' } };
}

function commandValueOf(body: CardAction | null | undefined): Partial<CommandValue> | undefined {
  const value = body?.action?.value;
  return typeof value === 'object' && value !== null ? (value as Partial<CommandValue>) : undefined;
}

function commandMessageOf(body: CardAction, identity: FeishuIdentity): InboundMessage | undefined {
  const value = commandValueOf(body);
  const text = (string: unknown) => (typeof string === 'string' && string !== '' ? string : undefined);
  const openId = text(body.operator?.open_id) ?? text(body.open_id);
  const chatId = text(body.context?.open_chat_id) ?? text(body.open_chat_id);
  const messageId = text(body.context?.open_message_id) ?? text(body.open_message_id);
  const click = text(body.token);
  if (!value?.command?.startsWith('/') || !openId || !chatId || !messageId || !click) return undefined;
  return {
    conversation: { channel: 'feishu', accountId: identity.appId, chatId, chatType: value.chat_type === 'group' ? 'group' : 'dm', messageId },
    dedupeKey: `feishu:${identity.appId}:${chatId}:click:${click}`,
    sender: { id: openId },
    text: value.command,
    sentAt: Date.now(),
    addressed: true,
    agentId: identity.agentId,
  };
}
