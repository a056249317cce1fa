/** Slack accepts up to 40,000 characters but advises 4,000 a message; longer ones are truncated or read badly. */
export const SLACK_MESSAGE_LIMIT = 4000;

const FENCE = '```';
const REOPEN = `${FENCE}\n`;
const CLOSE = `\n${FENCE}`;
/** A cut of the given kind is taken only when it keeps at least this share of the room. */
const FAIR_SHARE = 0.5;

export interface SplitOptions {
  limit?: number;
  /** Treat ``` lines as code fences (closed before a cut and reopened after it); off for plain notices. */
  codeFences?: boolean;
}

interface Cut {
  /** The chunk is `text.slice(0, end)`. */
  end: number;
  /** The rest starts at `resume` (separators between `end` and `resume` are dropped). */
  resume: number;
}

/**
 * Splits mrkdwn into messages of at most `limit` characters: at a paragraph break if a fair one fits,
 * else at a line break, else after a space, else anywhere that is not inside a `<link|label>`, a mention or
 * an `&amp;` entity. A code block cut in two is closed at the end of one chunk and reopened in the next.
 */
export function splitMrkdwn(text: string, options: SplitOptions = {}): string[] {
  const limit = options.limit ?? SLACK_MESSAGE_LIMIT;
  const fences = options.codeFences ?? true;
  const chunks: string[] = [];
  let rest = text.trim();
  let insideCode = false;
  while (rest !== '') {
    const prefix = insideCode ? REOPEN : '';
    if (prefix.length + rest.length <= limit) {
      chunks.push(prefix + rest);
      break;
    }
    const budget = Math.max(1, limit - prefix.length - (fences ? CLOSE.length : 0));
    const cut = findCut(rest, budget, insideCode, fences);
    const head = rest.slice(0, cut.end);
    const openAtCut: boolean = fences && fenceStateAfter(head, insideCode);
    chunks.push(prefix + head + (openAtCut ? CLOSE : ''));
    rest = rest.slice(cut.resume);
    insideCode = openAtCut;
  }
  return chunks;
}

function findCut(text: string, budget: number, insideCode: boolean, fences: boolean): Cut {
  const blocked = protectedPositions(text, budget);
  let paragraph: Cut | undefined;
  let line: Cut | undefined;
  let inside = insideCode;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    if (newline === -1 || newline > budget) break;
    const isFence = fences && text.startsWith(FENCE, lineStart);
    const opensCode = isFence && !inside;
    if (isFence) inside = !inside;
    // a cut right after an opening fence would leave an empty code block behind
    if (newline > 0 && !opensCode) line = { end: newline, resume: newline + 1 };
    if (newline > 0 && !inside && text[newline + 1] === '\n') {
      let resume = newline + 1;
      while (text[resume] === '\n') resume += 1;
      paragraph = { end: newline, resume };
    }
    lineStart = newline + 1;
  }
  const word = lastSpaceCut(text, budget, blocked);
  const fair = budget * FAIR_SHARE;
  for (const cut of [paragraph, line, word]) {
    if (cut !== undefined && cut.end >= fair) return cut;
  }
  const best = [paragraph, line, word].filter((cut): cut is Cut => cut !== undefined).sort((a, b) => b.end - a.end)[0];
  return best ?? hardCut(text, budget, blocked);
}

/** After the space, so the space stays with the first chunk and nothing is lost. */
function lastSpaceCut(text: string, budget: number, blocked: boolean[]): Cut | undefined {
  for (let index = Math.min(budget, text.length) - 1; index > 0; index -= 1) {
    if (text[index] === ' ' && !blocked[index + 1]) return { end: index + 1, resume: index + 1 };
  }
  return undefined;
}

function hardCut(text: string, budget: number, blocked: boolean[]): Cut {
  let end = budget;
  while (end > 1 && (blocked[end] || isLowSurrogate(text.charCodeAt(end)))) end -= 1;
  if (end <= 1) {
    // one token longer than a whole message: cut it anyway, but never through a surrogate pair
    end = isLowSurrogate(text.charCodeAt(budget)) ? budget - 1 : budget;
  }
  return { end, resume: end };
}

/** `blocked[i]`: a cut before character `i` would split a `<…>` token or an `&…;` entity. */
function protectedPositions(text: string, budget: number): boolean[] {
  const blocked = new Array<boolean>(budget + 2).fill(false);
  for (const match of text.slice(0, budget + 1024).matchAll(/<[^<>\n]*>|&[a-zA-Z0-9#]{1,10};/g)) {
    for (let index = match.index + 1; index < match.index + match[0].length && index <= budget + 1; index += 1) blocked[index] = true;
  }
  return blocked;
}

function fenceStateAfter(head: string, insideAtStart: boolean): boolean {
  let inside = insideAtStart;
  for (const line of head.split('\n')) if (line.startsWith(FENCE)) inside = !inside;
  return inside;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
