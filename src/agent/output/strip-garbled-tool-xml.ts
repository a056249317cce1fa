import { endOfBalanced } from './balanced.js';

// Models such as DeepSeek, GLM, Qwen and MiniMax sometimes print their tool calls as text.
const BLOCK_NAME = String.raw`(?:[a-z_]+:)?(?:tool_calls?|function_calls?|tool_use|invoke)`;
const BLOCK = new RegExp(String.raw`<(${BLOCK_NAME})\b[^>]*>([\s\S]*?)<\/\1\s*>`, 'gi');
const FUNCTION_EQUALS = /<function=[^>]*>[\s\S]*?<\/function>/gi;
const PARAMETER = /<((?:[a-z_]+:)?parameter)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const UNCLOSED_OPEN = new RegExp(String.raw`<${BLOCK_NAME}\b[^>]*>\s*(?=[{\[])`, 'gi');
const STRAY_TAG = new RegExp(String.raw`<\/?(?:${BLOCK_NAME}|(?:[a-z_]+:)?parameter|tool_name|arguments)\b[^>]*\/?>`, 'gi');
const SPECIAL_SECTION = /<[|\uFF5C]tool[\u2581_]calls?(?:[\u2581_]section)?[\u2581_]begin[|\uFF5C]>[\s\S]*?(?:<[|\uFF5C]tool[\u2581_]calls?(?:[\u2581_]section)?[\u2581_]end[|\uFF5C]>|$)/g;
const SPECIAL_TOKEN = /<[|\uFF5C]tool[\u2581_][a-z\u2581_]*[|\uFF5C]>/g;

/** Inner text that is a call (JSON, parameter tags) rather than words meant for the user. */
function isStructured(inner: string): boolean {
  const trimmed = inner.trim();
  return trimmed === '' || /^[{\[]/.test(trimmed) || /<(?:[a-z_]+:)?(?:parameter|invoke)\b/i.test(trimmed) || /^"?name"?\s*[:=]/.test(trimmed);
}

function removeUnclosedCalls(text: string): string {
  let result = text;
  for (let match = UNCLOSED_OPEN.exec(result); match; match = UNCLOSED_OPEN.exec(result)) {
    const jsonStart = match.index + match[0].length;
    const jsonEnd = endOfBalanced(result, jsonStart);
    const end = jsonEnd === -1 ? jsonStart : jsonEnd;
    result = result.slice(0, match.index) + result.slice(end);
    UNCLOSED_OPEN.lastIndex = match.index;
  }
  return result;
}

/**
 * Step 1: remove tool-call markup printed as text. Blocks that hold a call are dropped whole;
 * blocks that hold words lose only their tags, so an answer with text is never wiped.
 */
export function stripGarbledToolXml(text: string): string {
  const cleaned = removeUnclosedCalls(
    text
      .replace(SPECIAL_SECTION, '')
      .replace(BLOCK, (_match, _name: string, inner: string) => (isStructured(inner) ? '' : inner))
      .replace(FUNCTION_EQUALS, '')
      .replace(PARAMETER, ''),
  )
    .replace(STRAY_TAG, '')
    .replace(SPECIAL_TOKEN, '');
  return cleaned === text ? text : cleaned.replace(/\n{3,}/g, '\n\n');
}
