import type { ApprovalChoice, ApprovalPrompt } from '../core/approval.js';

/** The three buttons of an approval request (CONTRACT §11), as each channel renders them. */
export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalChoice; label: string }> = [
  { choice: 'once', label: 'Allow once' },
  { choice: 'session', label: 'Allow for this session' },
  { choice: 'deny', label: 'Deny' },
];

/** `<prefix>:<approvalId>:<choice>` — what a button carries back (Telegram callback_data, Slack value, card value). */
export const APPROVAL_ACTION_PREFIX = 'apv';

export function encodeApprovalAction(approvalId: string, choice: ApprovalChoice): string {
  return `${APPROVAL_ACTION_PREFIX}:${approvalId}:${choice}`;
}

export function decodeApprovalAction(value: string): { approvalId: string; choice: ApprovalChoice } | undefined {
  const match = /^apv:([A-Za-z0-9_-]{1,40}):(once|session|deny)$/.exec(value);
  return match ? { approvalId: match[1]!, choice: match[2] as ApprovalChoice } : undefined;
}

/** The prompt's text: which tool, with what. */
export function approvalPromptText(prompt: ApprovalPrompt): string {
  return `Approval needed: the assistant wants to run ${prompt.toolName} with ${prompt.argumentsPreview}`;
}
