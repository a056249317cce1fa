export type InputGuardMode = 'off' | 'log' | 'warn' | 'block';

/** Not after a negation or a question about it: "don't forget the previous instructions", "did you ignore the rules above?". */
const NOT_NEGATED = String.raw`(?<!(?:\bnot|\bnever|n['\u2019]t|\bdid\s+you|\bdo\s+you)\s+)`;
const DROP_VERB = String.raw`\b(?:ignore|disregard|forget|override|bypass|dismiss|discard|abandon|overlook|neglect|set\s+aside|throw\s+out|pay\s+no\s+(?:attention|heed|mind)\s+to|do\s+not\s+(?:follow|obey)|don['\u2019]?t\s+(?:follow|obey)|stop\s+(?:following|obeying)|no\s+longer\s+(?:follow|obey))`;
const DETERMINERS = String.raw`(?:\s+(?:all|any|and|each|every|of|the|these|those|such|other|your|its))*`;
const POINTING_BACK = String.raw`(?:previous|previously\s+given|prior|earlier|above|preceding|foregoing|former|original|initial|your|system|developer|hidden)`;
const MODIFIER = String.raw`(?:(?:and|or|,)\s*${POINTING_BACK}|system|safety|security|content|developer|operator|moderation|ethical|core|base|set\s+of|list\s+of|other|ai|assistant|chatbot|bot|model)`;
const INSTRUCTIONS = String.raw`(?:instructions?|directives?|directions?|commands?|orders?|rules?|prompts?|guidelines?|guidance|guardrails?|constraints?|restrictions?|polic(?:y|ies)|programming|system\s+prompt)`;
const WHERE_FROM = String.raw`(?:above|before|earlier|previously|so\s+far|until\s+now|up\s+to\s+now|(?:you\s+(?:were|have\s+been|got)|you['\u2019]ve\s+been)\s+(?:given|told|sent))`;

/**
 * "Ignore previous instructions" as a family, not a string: a verb that drops something (ignore, disregard, forget,
 * pay no attention to, do not follow, …), then up to a few determiners ("all of the", "any and all", "your"), then
 * either a qualifier that points back at what the bot was told (previous, prior, earlier, above, original, your, …)
 * and, after at most two words like "system" or "safety", a noun for it (instructions, directives, commands, rules,
 * prompt, guidelines, …), or that noun followed by where it came from ("the rules you were given", "the instructions
 * above"); or "everything" followed by where ("forget everything above", "everything you were told"). Any case, any
 * spacing.
 *
 * Where the line is: the words must tell the bot to drop instructions. Not flagged: asking about them ("what were the
 * previous instructions for the desk?"), dropping something else ("ignore the previous email's typo"), a user taking
 * back their own ("forget my earlier instructions", "ignore our previous rules"), a negation ("don't forget the
 * previous instructions") and the past tense ("I ignored the previous instructions").
 */
const IGNORE_INSTRUCTIONS = new RegExp(
  `${NOT_NEGATED}${DROP_VERB}${DETERMINERS}\\s+(?:` +
    // "ignore all of the previous instructions", "disregard prior system directives", "forget your rules"
    `${POINTING_BACK}(?:\\s+${MODIFIER}){0,2}\\s+${INSTRUCTIONS}\\b` +
    // "ignore the rules you were given", "disregard all instructions given above"
    `|${INSTRUCTIONS}(?:\\s+(?:given|received|written|stated|listed|sent)(?:\\s+to\\s+you)?)?\\s+${WHERE_FROM}\\b` +
    // "forget everything above", "ignore everything you were told"
    `|(?:everything|anything)(?:\\s+(?:said|written|stated))?\\s+${WHERE_FROM}\\b` +
    `)`,
  'i',
);

/** The six prompt-injection patterns of seed 000 §4, in the seed's order. */
export const INPUT_GUARD_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'ignore_instructions', pattern: IGNORE_INSTRUCTIONS },
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
