/** The three buttons of an approval request (CONTRACT §11). */
export type ApprovalChoice = 'once' | 'session' | 'deny';

export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalChoice; label: string }> = [
  { choice: 'once', label: 'Allow once' },
  { choice: 'session', label: 'Allow for this session' },
  { choice: 'deny', label: 'Deny' },
];

/** What the bot asks in the chat; platform-neutral, rendered by each channel with its own buttons. */
export interface ApprovalPrompt {
  approvalId: string;
  toolName: string;
  /** The call's arguments, shortened for display. */
  argumentsPreview: string;
}

/** A click on one of the buttons, verified by the channel (signature, token) and normalized. */
export interface ApprovalAnswer {
  approvalId: string;
  choice: ApprovalChoice;
  /** Who clicked, as the platform identifies users (the same ids as `Sender.id`). */
  userId: string;
  userName?: string;
}

/** `accepted`: the decision was taken (the prompt shows it); `refused`: not this user, already answered, expired. */
export type ApprovalAnswerResult = { kind: 'accepted' | 'refused'; text: string };

export type ApprovalSink = (answer: ApprovalAnswer) => Promise<ApprovalAnswerResult>;

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
