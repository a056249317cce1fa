import type { KnownBlock } from '@slack/web-api';
import type { CommandButton, ConversationRef, DeliveryReceipt, InboundMessage, InboundSink } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { sanitizingSink } from '../shared/index.js';
import type { BlockActions } from './approval-buttons.js';
import { toPlatformError } from './errors.js';
import type { SlackIdentity } from './inbound.js';
import { withRateLimitRetry } from './rate-limit.js';
import type { SlackClients } from './web-clients.js';

/** Action ids of command buttons: this prefix and the button's position; the value is the command. */
const ACTION_ID_PREFIX = 'command_';
/** Slack's cap on a button's text and on the buttons of one actions block. */
const BUTTON_TEXT_CHARS = 75;
const BUTTONS_PER_BLOCK = 25;

/** The notice as Block Kit: the text, then the buttons (in the conversation's thread, like any notice). */
export async function sendCommandButtons(clients: SlackClients, to: ConversationRef, text: string, buttons: CommandButton[]): Promise<DeliveryReceipt> {
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'plain_text', text, emoji: false } },
    {
      type: 'actions',
      block_id: 'commands',
      elements: buttons.slice(0, BUTTONS_PER_BLOCK).map((button, index) => ({
        type: 'button' as const,
        action_id: `${ACTION_ID_PREFIX}${index}`,
        text: { type: 'plain_text' as const, text: button.label.slice(0, BUTTON_TEXT_CHARS) },
        value: button.command,
      })),
    },
  ];
  try {
    const result = await withRateLimitRetry(() =>
      clients.posting.chat.postMessage({ channel: to.chatId, text, blocks, ...(to.threadId !== undefined ? { thread_ts: to.threadId } : {}) }),
    );
    if (!result.ts) throw new Error('chat.postMessage answered without a ts');
    return { messageIds: [result.ts] };
  } catch (error) {
    throw toPlatformError(error, 'chat.postMessage');
  }
}

/** Whether an interaction is a click on a command button. */
export function isCommandClick(payload: { type: string; actions?: unknown }): payload is BlockActions {
  return (
    payload.type === 'block_actions' &&
    Array.isArray(payload.actions) &&
    payload.actions.some((action: { action_id?: unknown }) => typeof action?.action_id === 'string' && action.action_id.startsWith(ACTION_ID_PREFIX))
  );
}

/**
 * A click: its command goes to the sink as if the one who clicked had typed it where the button is (the channel,
 * and the thread when the message is in one), once per click; a click Slack sends again is a duplicate.
 */
export async function handleCommandClick(payload: BlockActions, identity: SlackIdentity, sink: InboundSink, logger: Logger): Promise<void> {
  const message = commandMessageOf(payload, identity);
  if (!message) return;
  const outcome = await sanitizingSink(sink)(message);
  if (outcome.kind === 'rejected') logger.warn({ reason: outcome.reason }, 'slack command button click not accepted');
}

function commandMessageOf(payload: BlockActions, identity: SlackIdentity): InboundMessage | undefined {
  const action = payload.actions.find((candidate) => candidate.action_id?.startsWith(ACTION_ID_PREFIX));
  const channel = payload.channel?.id;
  if (!action?.value?.startsWith('/') || !channel) return undefined;
  const click = payload.trigger_id ?? action.action_ts;
  if (!click) return undefined;
  const threadId = payload.container?.thread_ts;
  const name = payload.user.name ?? payload.user.username;
  return {
    conversation: {
      channel: 'slack',
      accountId: identity.teamId,
      chatId: channel,
      chatType: channel.startsWith('D') ? 'dm' : 'group',
      ...(threadId !== undefined ? { threadId } : {}),
      messageId: click,
    },
    dedupeKey: `slack:${identity.teamId}:${channel}:click:${click}`,
    sender: { id: payload.user.id, ...(name ? { username: name } : {}) },
    text: action.value,
    sentAt: Date.now(),
    ...(threadId !== undefined ? { threadKind: 'thread' as const } : {}),
    addressed: true,
    agentId: identity.agentId,
  };
}
