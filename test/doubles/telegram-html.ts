/** The subset of Telegram's HTML parse mode the double checks (https://core.telegram.org/bots/api#html-style). */
const ALLOWED_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/**
 * Telegram's HTML parse mode, strictly: only its tags, properly nested and closed, and its nesting rules
 * (nothing inside code/pre but `<pre><code>`, no link or blockquote inside itself, no code inside a link).
 * Returns the visible text, or the reason Telegram would give.
 */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const stack: string[] = [];
  let text = '';
  let index = 0;
  const offset = (at: number): number => Buffer.byteLength(html.slice(0, at));
  while (index < html.length) {
    const character = html[index] as string;
    if (character === '<') {
      const end = html.indexOf('>', index);
      const name = /^<\/?([a-z][a-z0-9-]*)/i.exec(html.slice(index))?.[1]?.toLowerCase();
      if (end === -1 || name === undefined || !ALLOWED_TAGS.has(name)) {
        return { error: `Unsupported start tag "${name ?? html.slice(index + 1, index + 8)}" at byte offset ${offset(index)}` };
      }
      if (html[index + 1] === '/') {
        const open = stack.pop();
        if (open !== name) return { error: `Unmatched end tag at byte offset ${offset(index)}, expected "</${open ?? ''}>", found "</${name}>"` };
      } else {
        const parent = stack.at(-1);
        const nestedInCode = parent === 'code' || (parent === 'pre' && name !== 'code');
        const badInLink = stack.includes('a') && ['a', 'code', 'pre', 'blockquote'].includes(name);
        const nestedQuote = name === 'blockquote' && stack.includes('blockquote');
        if (nestedInCode || badInLink || nestedQuote) return { error: `Can't nest "${name}" in "${parent ?? ''}" at byte offset ${offset(index)}` };
        stack.push(name);
      }
      index = end + 1;
    } else if (character === '&') {
      const entity = /^&(#\d+|#x[0-9a-f]+|[a-z]+);/i.exec(html.slice(index, index + 12))?.[1];
      const decoded = entity === undefined ? '&' : decodeEntity(entity);
      if (decoded === undefined) return { error: `Unsupported HTML entity "&${entity};" at byte offset ${offset(index)}` };
      text += decoded;
      index += entity === undefined ? 1 : entity.length + 2;
    } else {
      text += character;
      index += 1;
    }
  }
  const unclosed = stack.pop();
  return unclosed === undefined ? { text } : { error: `Can't find end tag corresponding to start tag "${unclosed}"` };
}

function decodeEntity(entity: string): string | undefined {
  if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
  if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
  return ENTITIES[entity.toLowerCase()];
}
