export type InputGuardMode = 'off' | 'log' | 'warn' | 'block';

/** The six prompt-injection patterns of seed 000 §4, in the seed's order. */
export const INPUT_GUARD_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  {
    name: 'ignore_instructions',
    pattern: /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|former)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages)/i,
  },
  {
    name: 'role_override',
    pattern: /\byou\s+are\s+now\s+(?:a|an|the|my|in)\b|\bfrom\s+now\s+on,?\s+you\s+are\b|\bpretend\s+(?:to\s+be|you\s+are)\b|\bact\s+as\s+(?:if\s+you\s+were\s+)?(?:a|an)\s+(?:different|new|unrestricted)\b/i,
  },
  {
    name: 'system_tags',
    pattern: /<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?(?:SYSTEM|INST)\]|<<\/?SYS>>|<system>/i,
  },
  {
    name: 'instruction_injection',
    pattern: /\b(?:new|updated|revised|additional)\s+(?:instructions?|system\s+prompt)\s*:|\boverride\s*:|\bsystem\s+prompt\s*:/i,
  },
  { name: 'null_bytes', pattern: /\u0000/ },
  {
    name: 'delimiter_escape',
    pattern: /\bend\s+of\s+(?:the\s+)?(?:system|instructions?|prompt|context)\b|<\/(?:system|instructions?|prompt|context)>|-{3,}\s*end\s*-{3,}/i,
  },
];

/** Names of the patterns that match, in the seed's order. */
export function scanInput(text: string): string[] {
  return INPUT_GUARD_PATTERNS.filter(({ pattern }) => pattern.test(text)).map(({ name }) => name);
}

export const MAX_MESSAGE_CHARS = 32_768;

export const INPUT_BLOCKED_REPLY =
  "Sorry, I can't process this message because it looks like it tries to change my instructions. Please rephrase your request.";

export interface GuardedInput {
  /** The message as the model should see it (truncated with a notice when too long). */
  text: string;
  findings: string[];
  /** Only in `block` mode with findings: answer `reply` and run no model. */
  blocked: boolean;
  /** The polite answer to send instead, present only when blocked. */
  reply?: string;
}

export function truncateMessage(text: string, maxChars = MAX_MESSAGE_CHARS): string {
  if (text.length <= maxChars) return text;
  const lastCode = text.charCodeAt(maxChars - 1);
  const end = lastCode >= 0xd800 && lastCode <= 0xdbff ? maxChars - 1 : maxChars;
  return `${text.slice(0, end)}\n\n[Message truncated: the user sent ${text.length} characters; only the first ${end} are shown.]`;
}

/** Scans (unless off) and truncates; logging the findings is the caller's job. */
export function applyInputGuard(text: string, mode: InputGuardMode, maxChars = MAX_MESSAGE_CHARS): GuardedInput {
  return { ...screenInput(text, mode), text: truncateMessage(text, maxChars) };
}

/**
 * Scans (unless off) and cuts nothing: for input whose parts are bounded by their own limits (the typed words
 * by `truncateMessage`, a document's text by MEDIA_TEXT_MAX_CHARS) before they are put together.
 */
export function screenInput(text: string, mode: InputGuardMode): GuardedInput {
  const findings = mode === 'off' ? [] : scanInput(text);
  const blocked = mode === 'block' && findings.length > 0;
  return { text, findings, blocked, ...(blocked ? { reply: INPUT_BLOCKED_REPLY } : {}) };
}
