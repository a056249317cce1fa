/** Where a chunk may end, strongest first: after a paragraph, a line, a word, or anywhere markup allows. */
export type BreakKind = 'paragraph' | 'line' | 'word' | 'any';

const RANK: Record<BreakKind, number> = { paragraph: 0, line: 1, word: 2, any: 3 };

/**
 * The cut-finder every splitter uses. The platform scans its own text (HTML atoms, mrkdwn lines, Markdown
 * blocks) and offers the places a chunk may end, each with the size the chunk would have there as the
 * platform measures it (tags to close and reopen, a fence to close), leaving out places inside markup or
 * a code block's opening; the finder keeps the last fitting place of each kind and picks the cut.
 */
export class CutFinder<Cut extends { end: number }> {
  /** By rank (strongest first): a plain array, since a scan offers a place at every character or atom. */
  private readonly last: Array<Cut | undefined> = [undefined, undefined, undefined, undefined];

  constructor(readonly limit: number) {}

  /** Records `cut` for each of `kinds` if `size` fits; false when it does not (a forward scan can stop). */
  offer(cut: Cut, size: number, kinds: readonly BreakKind[]): boolean {
    if (size > this.limit) return false;
    for (const kind of kinds) this.last[RANK[kind]] = cut;
    return true;
  }

  /**
   * The strongest kind of cut found that keeps at least `fairShare` of the limit in the chunk (0: the strongest
   * found); when none does, the longest chunk (the stronger kind on a tie). Undefined if nothing was offered.
   */
  best(fairShare = 0): Cut | undefined {
    const fair = this.limit * fairShare;
    let longest: Cut | undefined;
    for (const cut of this.last) {
      if (cut === undefined) continue;
      if (cut.end >= fair) return cut;
      if (longest === undefined || cut.end > longest.end) longest = cut;
    }
    return longest;
  }
}

/** The end of the last `character` before `end` (the cut after it), at index `from` or later, where `allowed`. */
export function cutAfterLast(text: string, character: string, end: number, from = 0, allowed: (cut: number) => boolean = () => true): number | undefined {
  if (end <= from) return undefined;
  for (let index = text.lastIndexOf(character, end - 1); index >= from; index = text.lastIndexOf(character, index - 1)) {
    if (allowed(index + 1)) return index + 1;
    if (index === 0) break;
  }
  return undefined;
}

/**
 * A cut at `end` or as little before it as needed to fall neither between the halves of a surrogate pair
 * nor where `blocked` says markup would tear (an entity, a `<link|label>`). A chunk keeps at least one
 * character: when every place before `end` is blocked, the cut is at `end`, still never inside a pair.
 */
export function hardCut(text: string, end: number, blocked: (cut: number) => boolean = () => false): number {
  let cut = end;
  while (cut > 1 && (blocked(cut) || splitsSurrogatePair(text, cut))) cut -= 1;
  if (cut > 1) return cut;
  // a limit of one character cannot keep a pair together, and the split must advance
  return end > 1 && splitsSurrogatePair(text, end) ? end - 1 : end;
}

/** True when cutting `text` before index `at` would part a high surrogate from its low one. */
export function splitsSurrogatePair(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}
