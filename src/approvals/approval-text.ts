import type { ApprovalStatus } from './approval-records.js';

const PREVIEW_CHARS = 300;

/** Who decided, in a record's `decidedBy`, when an operator denied the request from the console. */
export const OPERATOR_PREFIX = 'operator:';

/** The call's arguments for the prompt: compact JSON, cut with an ellipsis. */
export function argumentsPreview(rawArguments: string): string {
  let text = rawArguments.trim();
  try {
    text = JSON.stringify(JSON.parse(text));
  } catch {
    // not JSON: shown as the model wrote it
  }
  if (text === '' || text === '{}') return 'no arguments';
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** One line that replaces the buttons once the request is settled. */
export function decisionText(status: Exclude<ApprovalStatus, 'pending'>, by?: string): string {
  const who = by ? ` by ${by}` : '';
  switch (status) {
    case 'allowed-once':
      return `Allowed once${who}.`;
    case 'allowed-session':
      return `Allowed for this session${who}.`;
    case 'denied':
      return `Denied${who}.`;
    case 'timed-out':
      return 'No answer in time: denied.';
    case 'stopped':
      return 'Stopped.';
  }
}
