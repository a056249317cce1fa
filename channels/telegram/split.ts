import { CutFinder, type BreakKind } from '../shared/index.js';
import { tokenizeHtml, type HtmlAtom } from './html-text.js';

/** Telegram's limit counts characters after entity parsing; measuring the HTML itself stays on the safe side. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

type OpenTag = { raw: string; name: string };
type Cut = { end: number; openAtEnd: OpenTag[] };
/** How a chunk's size is counted: its HTML (for parse_mode HTML) or only its visible text (for plain text). */
interface Measure {
  atom(atom: HtmlAtom): number;
  tags(tags: string): number;
}

export interface SplitOptions {
  limit?: number;
  measure?: 'html' | 'text';
}

/**
 * Splits Telegram HTML into messages of at most `limit` characters: at a paragraph break if one fits,
 * else a line break, else a space, else anywhere between two atoms. Tags open across a cut are closed
 * at its end and reopened (with their attributes, e.g. `<pre><code class="language-ts">`) after it,
 * so every chunk is well-formed and the visible text of the chunks, joined, is the visible text of the input.
 */
export function splitTelegramHtml(html: string, options: SplitOptions = {}): string[] {
  const limit = options.limit ?? TELEGRAM_MESSAGE_LIMIT;
  const measure: Measure =
    options.measure === 'text'
      ? { atom: (atom) => (atom.kind === 'text' ? atom.text.length : 0), tags: () => 0 }
      : { atom: (atom) => atom.raw.length, tags: (tags) => tags.length };
  const atoms = tokenizeHtml(html);
  const size = atoms.reduce((total, atom) => total + measure.atom(atom), 0);
  if (size <= limit) return html.trim() === '' ? [] : [html];
  const chunks: string[] = [];
  let start = 0;
  let openAtStart: OpenTag[] = [];
  while (start < atoms.length) {
    const cut = findCut(atoms, start, openAtStart, limit, measure);
    const body = atoms.slice(start, cut.end).map((atom) => atom.raw).join('');
    chunks.push(openingTags(openAtStart) + body + closingTags(cut.openAtEnd));
    start = cut.end;
    openAtStart = cut.openAtEnd;
  }
  return chunks;
}

function findCut(atoms: HtmlAtom[], start: number, openAtStart: OpenTag[], limit: number, measure: Measure): Cut {
  const stack = [...openAtStart];
  // size of the chunk if it were cut here: reopened tags + body so far + the closers it would need
  let length = measure.tags(openingTags(stack)) + measure.tags(closingTags(stack));
  let previousText = '';
  let lastText = '';
  let hasText = false;
  const finder = new CutFinder<Cut>(limit);
  for (let index = start; index <= atoms.length; index += 1) {
    const atom = atoms[index];
    if (hasText && isCutPoint(atoms[index - 1], atom)) {
      const cut = { end: index, openAtEnd: [...stack] };
      if (!finder.offer(cut, length, kindsOfCut(lastText, previousText, stack.length === 0))) break;
      if (atom === undefined) return cut;
    }
    if (atom === undefined) break;
    length += measure.atom(atom);
    if (atom.kind === 'open') {
      stack.push({ raw: atom.raw, name: atom.name });
      length += measure.tags(closingTag(atom.name));
    } else if (atom.kind === 'close') {
      const openIndex = stack.map((tag) => tag.name).lastIndexOf(atom.name);
      if (openIndex !== -1) {
        stack.splice(openIndex, 1);
        length -= measure.tags(closingTag(atom.name));
      }
    } else {
      previousText = lastText;
      lastText = atom.text;
      hasText = true;
    }
  }
  return finder.best() ?? forcedCut(atoms, start, openAtStart);
}

const ANY: readonly BreakKind[] = ['any'];
const AFTER_SPACE: readonly BreakKind[] = ['word', 'any'];
const AFTER_NEWLINE: readonly BreakKind[] = ['line', 'any'];
const AFTER_BLANK_LINE: readonly BreakKind[] = ['paragraph', 'line', 'any'];

/** A paragraph break only outside every tag (a blank line inside `<pre>` is code). */
function kindsOfCut(lastText: string, previousText: string, outsideTags: boolean): readonly BreakKind[] {
  if (lastText === ' ') return AFTER_SPACE;
  if (lastText !== '\n') return ANY;
  return previousText === '\n' && outsideTags ? AFTER_BLANK_LINE : AFTER_NEWLINE;
}

/** Never right after an opening tag nor right before a closing one: no empty elements, no `<pre>` torn from its `<code>`. */
function isCutPoint(before: HtmlAtom | undefined, after: HtmlAtom | undefined): boolean {
  return before?.kind !== 'open' && after?.kind !== 'close';
}

/** Only when the limit is smaller than the tags themselves: take one text atom so the split always advances. */
function forcedCut(atoms: HtmlAtom[], start: number, openAtStart: OpenTag[]): Cut {
  const stack = [...openAtStart];
  let index = start;
  while (index < atoms.length) {
    const atom = atoms[index] as HtmlAtom;
    index += 1;
    if (atom.kind === 'open') stack.push({ raw: atom.raw, name: atom.name });
    else if (atom.kind === 'close') stack.splice(stack.map((tag) => tag.name).lastIndexOf(atom.name), 1);
    else if (atoms[index]?.kind !== 'close') break;
  }
  return { end: index, openAtEnd: stack };
}

function openingTags(stack: OpenTag[]): string {
  return stack.map((tag) => tag.raw).join('');
}

function closingTags(stack: OpenTag[]): string {
  return stack
    .map((tag) => closingTag(tag.name))
    .reverse()
    .join('');
}

function closingTag(name: string): string {
  return `</${name}>`;
}
