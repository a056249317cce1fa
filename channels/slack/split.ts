import { cutAfterLast, CutFinder, hardCut } from '../shared/index.js';

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
  const finder = new CutFinder<Cut>(budget);
  let inside = insideCode;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    if (newline === -1 || newline > budget) break;
    const isFence = fences && text.startsWith(FENCE, lineStart);
    const opensCode = isFence && !inside;
    if (isFence) inside = !inside;
    // a cut right after an opening fence would leave an empty code block behind
    if (newline > 0 && !opensCode) finder.offer({ end: newline, resume: newline + 1 }, newline, ['line']);
    if (newline > 0 && !inside && text[newline + 1] === '\n') {
      let resume = newline + 1;
      while (text[resume] === '\n') resume += 1;
      finder.offer({ end: newline, resume }, newline, ['paragraph']);
    }
    lineStart = newline + 1;
  }
  // after the space, so the space stays with the first chunk and nothing is lost
  const word = cutAfterLast(text, ' ', Math.min(budget, text.length), 1, (cut) => !blocked[cut]);
  if (word !== undefined) finder.offer({ end: word, resume: word }, word, ['word']);
  const chosen = finder.best(FAIR_SHARE);
  if (chosen !== undefined) return chosen;
  const end = hardCut(text, budget, (cut) => blocked[cut] === true);
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
