import {
  type ApprovalAnswerResult,
  type ApprovalPrompt,
  type ApprovalSink,
  type ConversationRef,
  type DeliveryProgress,
} from '../../src/core/index.js';
import { APPROVAL_BUTTONS, approvalPromptText, decodeApprovalAction, encodeApprovalAction } from '../../src/approvals/approval-actions.js';
import type { MessagesApi } from './messages-api.js';
import type { FeishuOutbound } from './outbound.js';

/** A shared card (update_multi), so the decision can replace the buttons for everyone in the chat. */
function card(prompt: ApprovalPrompt, outcome?: string): string {
  const text = { tag: 'div', text: { tag: 'plain_text', content: approvalPromptText(prompt) } };
  const tail = outcome
    ? [{ tag: 'note', elements: [{ tag: 'plain_text', content: outcome }] }]
    : [
        {
          tag: 'action',
          actions: APPROVAL_BUTTONS.map(({ choice, label }) => ({
            tag: 'button',
            text: { tag: 'plain_text', content: label },
            type: choice === 'deny' ? 'danger' : choice === 'once' ? 'primary' : 'default',
            value: { approval: encodeApprovalAction(prompt.approvalId, choice) },
          })),
        },
      ];
  return JSON.stringify({ config: { wide_screen_mode: true, update_multi: true }, elements: [text, ...tail] });
}

/** The request as an interactive card replying to the message that started the turn (under its part's `uuid`). */
export async function sendApprovalPrompt(outbound: FeishuOutbound, to: ConversationRef, prompt: ApprovalPrompt, progress?: DeliveryProgress): Promise<string> {
  const { messageIds } = await outbound.deliver(to, [{ msgType: 'interactive', content: card(prompt) }], progress);
  return messageIds[0]!;
}

export async function settleApprovalPrompt(api: MessagesApi, messageId: string, prompt: ApprovalPrompt, outcome: string): Promise<void> {
  await api.patch(messageId, card(prompt, outcome));
}

/**
 * A card action callback (schema 2.0 `card.action.trigger`, or the older plain form with `open_id` and
 * `action` at the top), over HTTP or the long connection → the answer, and the toast Feishu shows the clicker.
 */
export async function answerCardAction(event: unknown, sink: ApprovalSink | undefined): Promise<{ toast: { type: 'success' | 'error' | 'info'; content: string } } | undefined> {
  const fields = readCardAction(event);
  if (!fields || !sink) return undefined;
  const result: ApprovalAnswerResult = await sink({ ...fields.action, userId: fields.openId });
  return { toast: { type: result.kind === 'accepted' ? 'success' : 'error', content: result.text } };
}

function readCardAction(event: unknown): { openId: string; action: NonNullable<ReturnType<typeof decodeApprovalAction>> } | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const body = event as { operator?: { open_id?: unknown }; open_id?: unknown; action?: { value?: unknown } };
  const openId = typeof body.operator?.open_id === 'string' ? body.operator.open_id : typeof body.open_id === 'string' ? body.open_id : undefined;
  const value = body.action?.value;
  const encoded = typeof value === 'object' && value !== null ? (value as { approval?: unknown }).approval : undefined;
  const action = typeof encoded === 'string' ? decodeApprovalAction(encoded) : undefined;
  return openId && action ? { openId, action } : undefined;
}
