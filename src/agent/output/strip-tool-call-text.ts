import { endOfBalanced } from './balanced.js';

const MARKER = /^[ \t]*\[(Tool Call:|Tool Result\b|Historical context:)/im;
const LABEL = /^[ \t]*(?:\r?\n[ \t]*)?(?:(?:Arguments|Args|Input|Output|Result|Content)\s*:\s*)?(?=[{\[])/i;

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline + 1;
}

/** Past trailing spaces and one line break, so words after the JSON on its line survive. */
function afterLineBreak(text: string, from: number): number {
  const match = /^[ \t]*\r?\n?/.exec(text.slice(from));
  return from + (match?.[0].length ?? 0);
}

function endOfParagraph(text: string, from: number): number {
  const blank = /\n[ \t]*\n/g;
  blank.lastIndex = from;
  const match = blank.exec(text);
  return match ? match.index + 1 : text.length;
}

/** Where the text-format call that starts at `bracket` ends: the marker, its JSON, and a result's output. */
function endOfToolCallText(text: string, bracket: number, isResult: boolean): number {
  const markerEnd = endOfBalanced(text, bracket);
  const end = markerEnd === -1 ? endOfLine(text, bracket) : markerEnd;
  const label = LABEL.exec(text.slice(end));
  if (label) {
    const jsonEnd = endOfBalanced(text, end + label[0].length);
    if (jsonEnd !== -1) return afterLineBreak(text, jsonEnd);
  }
  return isResult ? endOfParagraph(text, end) : endOfLine(text, end);
}

/**
 * Step 2: remove tool calls a model wrote out as text (`[Tool Call: …]`, `[Tool Result …]`,
 * `[Historical context: …]`), usually copied from a history that was flattened into prose.
 */
export function stripToolCallText(text: string): string {
  let result = text;
  for (let match = MARKER.exec(result); match; match = MARKER.exec(result)) {
    const bracket = result.indexOf('[', match.index);
    const end = endOfToolCallText(result, bracket, (match[1] ?? '').startsWith('Tool Result'));
    result = result.slice(0, match.index) + result.slice(end);
  }
  return result;
}
