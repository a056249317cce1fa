/** Telegram HTML as a sequence of indivisible pieces: tags, entities and single code points. */
export type HtmlAtom =
  | { kind: 'open'; raw: string; name: string }
  | { kind: 'close'; raw: string; name: string }
  | { kind: 'text'; raw: string; text: string };

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
const ENTITY_PATTERN = /^&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/i;
const TAG_NAME_PATTERN = /^<\/?([a-z][a-z0-9-]*)/i;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  return escapeHtml(value).replace(/"/g, '&quot;');
}

/** The character an entity stands for, or undefined for entities Telegram does not know. */
export function decodeEntity(entity: string): string | undefined {
  const body = entity.slice(1, -1);
  if (body.startsWith('#')) {
    const codePoint = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return Number.isFinite(codePoint) && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : undefined;
  }
  return NAMED_ENTITIES[body.toLowerCase()];
}

/** Replaces the entities Telegram understands by their characters; anything else stays literal text. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (entity) => decodeEntity(entity) ?? entity);
}

export function tokenizeHtml(html: string): HtmlAtom[] {
  const atoms: HtmlAtom[] = [];
  let index = 0;
  while (index < html.length) {
    const character = html[index];
    if (character === '<') {
      const end = html.indexOf('>', index);
      const name = TAG_NAME_PATTERN.exec(html.slice(index, index + 40))?.[1];
      if (end !== -1 && name !== undefined) {
        const raw = html.slice(index, end + 1);
        atoms.push({ kind: raw.startsWith('</') ? 'close' : 'open', raw, name: name.toLowerCase() });
        index = end + 1;
        continue;
      }
    }
    if (character === '&') {
      const entity = ENTITY_PATTERN.exec(html.slice(index, index + 12))?.[0];
      if (entity !== undefined) {
        atoms.push({ kind: 'text', raw: entity, text: decodeEntity(entity) ?? entity });
        index += entity.length;
        continue;
      }
    }
    const codePoint = html.codePointAt(index) ?? 0;
    const raw = String.fromCodePoint(codePoint);
    atoms.push({ kind: 'text', raw, text: raw });
    index += raw.length;
  }
  return atoms;
}

/**
 * What a reader sees of Telegram HTML, as plain text. With `withLinks`, a link's address follows its
 * text in parentheses, so the plain-text fallback of a message keeps the URLs.
 */
export function htmlToPlainText(html: string, options: { withLinks?: boolean } = {}): string {
  let output = '';
  const linkStack: Array<{ href: string | undefined; textStart: number }> = [];
  for (const atom of tokenizeHtml(html)) {
    if (atom.kind === 'text') {
      output += atom.text;
    } else if (atom.name === 'a' && atom.kind === 'open') {
      const href = /href="([^"]*)"/.exec(atom.raw)?.[1];
      linkStack.push({ href: href === undefined ? undefined : decodeEntities(href), textStart: output.length });
    } else if (atom.name === 'a' && atom.kind === 'close') {
      const link = linkStack.pop();
      if (options.withLinks && link?.href && output.slice(link.textStart) !== link.href) output += ` (${link.href})`;
    }
  }
  return output;
}
