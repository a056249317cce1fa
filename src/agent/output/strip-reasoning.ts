const NAMES = 'think|thinking|thought|antthinking|redacted_thinking';
const BLOCK = new RegExp(String.raw`<(${NAMES})\b[^>]*>[\s\S]*?<\/\1\s*>`, 'gi');
const CLOSE_WITHOUT_OPEN = new RegExp(String.raw`^[\s\S]*?<\/(?:${NAMES})\s*>`, 'i');
const OPEN_WITHOUT_CLOSE = new RegExp(String.raw`<(?:${NAMES})\b[^>]*>[\s\S]*$`, 'i');

/**
 * Step 3: remove reasoning blocks (any case, with attributes, multi-line). A closing tag left
 * alone means the model began with unlabelled reasoning; an opening tag left alone means it
 * never finished reasoning.
 */
export function stripReasoning(text: string): string {
  return text.replace(BLOCK, '').replace(CLOSE_WITHOUT_OPEN, '').replace(OPEN_WITHOUT_CLOSE, '');
}

/** Step 4: unwrap `<final>…</final>`, keeping what is inside. */
export function unwrapFinal(text: string): string {
  return text.replace(/<\/?final\b[^>]*>/gi, '');
}
