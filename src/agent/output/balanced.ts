const CLOSERS: Record<string, string> = { '{': '}', '[': ']' };

/**
 * The index just after the bracket that closes the one at `start` (`{` or `[`), skipping
 * JSON strings; -1 when it never closes, so callers can fall back instead of eating the rest.
 */
export function endOfBalanced(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index] ?? '';
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"' && stack.length > 0 && stack.at(-1) === '}') inString = true;
    else if (character in CLOSERS) stack.push(CLOSERS[character] ?? '');
    else if (character === '}' || character === ']') {
      if (stack.pop() !== character) return -1;
      if (stack.length === 0) return index + 1;
    }
  }
  return -1;
}
