import { sanitizeAssistantContent } from './sanitize-assistant-content.js';

export const SILENT_TOKEN = 'NO_REPLY';

// Quotes, backticks, markdown emphasis, brackets and punctuation that may wrap the token.
const MARKS = String.raw`"'\x60*_()[\]{}<>.,;:!?\-\u201C\u201D\u2018\u2019\u00AB\u00BB`;
const LEADING_WRAPPING = new RegExp(`^[\\s${MARKS}]+`);
const TRAILING_WRAPPING = new RegExp(`[\\s${MARKS}]+$`);
const STARTS_WITH_TOKEN = /^no_reply(?![a-z0-9])/i;
const TRAILING_TOKEN = new RegExp(`(^|\\s)[${MARKS}]*no_reply[\\s${MARKS}]*$`, 'i');

function unwrap(text: string): string {
  return text.replace(LEADING_WRAPPING, '').replace(TRAILING_WRAPPING, '');
}

/**
 * Silent when, once wrapping characters are trimmed from both ends, the answer starts with
 * NO_REPLY (any case) not followed by a letter or digit: `NO_REPLY: user is away` is silent,
 * `NO_REPLYING` and `Sure, NO_REPLY is a token` are not.
 */
export function isSilentReply(text: string): boolean {
  return STARTS_WITH_TOKEN.test(unwrap(text));
}

/** `Here you go. NO_REPLY` → `Here you go.`: a token trailing real content is dropped, the content kept. */
export function stripSilentToken(text: string): string {
  return text.replace(TRAILING_TOKEN, '$1').trimEnd();
}

/**
 * While streaming: true as long as the text so far may still turn out to be a silent reply,
 * so the caller holds the draft instead of flashing `NO_…` at the user.
 */
export function couldBeSilentReply(textSoFar: string): boolean {
  const start = textSoFar.replace(LEADING_WRAPPING, '');
  if (start.length === 0) return true;
  if (start.length <= SILENT_TOKEN.length) return SILENT_TOKEN.startsWith(start.toUpperCase());
  return isSilentReply(start);
}

export interface FinalReply {
  /** What to deliver; empty when silent. */
  text: string;
  silent: boolean;
}

/** The raw final answer → what the user gets: sanitized, silent detected, trailing token stripped. */
export function finalizeReply(rawText: string): FinalReply {
  const sanitized = sanitizeAssistantContent(rawText);
  if (isSilentReply(sanitized)) return { text: '', silent: true };
  return { text: stripSilentToken(sanitized), silent: false };
}
