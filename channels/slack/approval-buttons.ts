import type { KnownBlock } from '@slack/web-api';
import {
  type ApprovalPrompt,
  type ApprovalSink,
  type ConversationRef,
  type DeliveryProgress,
} from '../../src/core/index.js';
import { APPROVAL_BUTTONS, approvalPromptText, decodeApprovalAction, encodeApprovalAction } from '../../src/approvals/approval-actions.js';
import type { Logger } from '../../src/observability/logger.js';
import { deliverParts } from '../shared/index.js';
import { toPlatformError } from './errors.js';
import { partMetadata, settleByMetadata } from './sent-lookup.js';
import { escapeMrkdwn } from './mrkdwn-text.js';
import { withRateLimitRetry } from './rate-limit.js';
import type { SlackClients } from './web-clients.js';

/** What the channel reads of a `block_actions` interaction (https://api.slack.com/reference/interaction-payloads/block-actions). */
export interface BlockActions {
  type: 'block_actions';
  user: { id: string; name?: string; username?: string };
  channel?: { id: string };
  container?: { thread_ts?: string };
  /** Unique per click (command buttons use it as the message's id). */
  trigger_id?: string;
  actions: Array<{ action_id?: string; value?: string; action_ts?: string }>;
}

const ACTION_ID_PREFIX = 'approval_';

function promptBlocks(prompt: ApprovalPrompt): KnownBlock[] {
  return [
    { type: 'section', text: { type: 'plain_text', text: approvalPromptText(prompt), emoji: false } },
    {
      type: 'actions',
      block_id: `approval:${prompt.approvalId}`,
      elements: APPROVAL_BUTTONS.map(({ choice, label }) => ({
        type: 'button' as const,
        action_id: `${ACTION_ID_PREFIX}${choice}`,
        text: { type: 'plain_text' as const, text: label },
        value: encodeApprovalAction(prompt.approvalId, choice),
        ...(choice === 'deny' ? { style: 'danger' as const } : choice === 'once' ? { style: 'primary' as const } : {}),
      })),
    },
  ];
}

/** The request as a Block Kit message with three buttons, in the turn's thread, carrying its part's metadata. */
export async function sendApprovalPrompt(clients: SlackClients, to: ConversationRef, prompt: ApprovalPrompt, logger: Logger, progress?: DeliveryProgress): Promise<string> {
  const key = progress?.key;
  const [ts] = await deliverParts([prompt], progress, {
    hint: () => ({}),
    // the post is aborted at the client's timeout and its retries end by the deadline: recorded with the intent
    sendTimeoutMs: clients.timeoutMs,
    async send(_prompt, _index, _hint, deadline) {
      try {
        const result = await withRateLimitRetry(() =>
          clients.posting.chat.postMessage({
            channel: to.chatId,
            text: approvalPromptText(prompt),
            blocks: promptBlocks(prompt),
            ...(to.threadId !== undefined ? { thread_ts: to.threadId } : {}),
            ...(key !== undefined ? { metadata: partMetadata(key, 0) } : {}),
          }),
          deadline !== undefined ? { deadline, attemptTimeoutMs: clients.timeoutMs } : undefined,
        );
        if (!result.ts) throw new Error('chat.postMessage answered without a ts');
        return result.ts;
      } catch (error) {
        throw toPlatformError(error, 'chat.postMessage', { mayHaveActed: key === undefined });
      }
    },
    settle: (_prompt, index, doubt) => (key === undefined ? Promise.resolve({ resolution: 'unverified_resend' as const }) : settleByMetadata(clients.repeatable, to, key, index, doubt.at, logger)),
  });
  return ts!;
}

/** The buttons give way to the decision. */
export async function settleApprovalPrompt(clients: SlackClients, to: ConversationRef, messageId: string, prompt: ApprovalPrompt, outcome: string): Promise<void> {
  const text = `${approvalPromptText(prompt)}\n${outcome}`;
  try {
    await withRateLimitRetry(() =>
      clients.repeatable.chat.update({
        channel: to.chatId,
        ts: messageId,
        text,
        blocks: [
          { type: 'section', text: { type: 'plain_text', text: approvalPromptText(prompt), emoji: false } },
          { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(outcome) }] },
        ],
      }),
    );
  } catch (error) {
    throw toPlatformError(error, 'chat.update');
  }
}

/** Whether an interaction is a click on one of our approval buttons. */
export function isApprovalClick(payload: { type: string; actions?: unknown }): payload is BlockActions {
  return (
    payload.type === 'block_actions' &&
    Array.isArray(payload.actions) &&
    payload.actions.some((action: { action_id?: unknown }) => typeof action?.action_id === 'string' && action.action_id.startsWith(ACTION_ID_PREFIX))
  );
}

/** A click: the answer goes to the sink; a refusal is told to the one who clicked only (ephemeral). */
export async function handleApprovalClick(clients: SlackClients, payload: BlockActions, sink: ApprovalSink | undefined, logger: Logger): Promise<void> {
  const action = payload.actions.map((candidate) => (candidate.value ? decodeApprovalAction(candidate.value) : undefined)).find(Boolean);
  if (!action || !sink) return;
  const name = payload.user.name ?? payload.user.username;
  const result = await sink({ ...action, userId: payload.user.id, ...(name ? { userName: name } : {}) });
  if (result.kind === 'accepted' || !payload.channel) return;
  await clients.repeatable.chat
    .postEphemeral({
      channel: payload.channel.id,
      user: payload.user.id,
      text: result.text,
      ...(payload.container?.thread_ts ? { thread_ts: payload.container.thread_ts } : {}),
    })
    .catch((error: unknown) => logger.warn({ err: error }, 'could not tell the user why the click was refused'));
}
