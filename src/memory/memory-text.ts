/** Pure text helpers of memory: the normalized form that decides equality, and word overlap for near-duplicates. */

export const MEMORY_MAX_CHARS = 1_000;
/** Two memories sharing this share of their words (Jaccard) are the same fact said twice: the newer wording replaces the older. */
export const SIMILAR_WORDS_RATIO = 0.8;

export function normalizeMemory(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?\u3002\uFF01\uFF1F\u2026]+$/u, '')
    .trim();
}

export function wordsOf(text: string): string[] {
  return [...new Set(text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

export function wordSimilarity(a: string, b: string): number {
  const left = new Set(wordsOf(a));
  const right = new Set(wordsOf(b));
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * A `to_tsquery('simple', …)` text matching any of the query's words (prefixes too: "coffee" finds "coffees");
 * only letters and digits reach it, so no user text can break the query syntax. Undefined: no words.
 */
export function anyWordQuery(text: string, maxWords = 32): string | undefined {
  const words = wordsOf(text)
    .filter((word) => word.length >= 2)
    .slice(0, maxWords);
  return words.length === 0 ? undefined : words.map((word) => `${word}:*`).join(' | ');
}
