import type { Token, Tokens } from 'marked';

export type PostStyle = 'bold' | 'italic' | 'underline' | 'lineThrough';

export type PostElement =
  | { tag: 'text'; text: string; style?: PostStyle[] }
  | { tag: 'a'; text: string; href: string; style?: PostStyle[] }
  | { tag: 'code_block'; language?: string; text: string }
  | { tag: 'hr' };

const LINKABLE = /^(https?:\/\/|mailto:)/i;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Inline Markdown tokens → post elements; a text element's `\n` marks a line break (see splitIntoLines). */
export function inlineElements(tokens: Token[], style: PostStyle[]): PostElement[] {
  return merge(tokens.flatMap((token) => inlineElement(token, style)));
}

function inlineElement(token: Token, style: PostStyle[]): PostElement[] {
  const inline = token as Tokens.Generic;
  switch (inline.type) {
    case 'text':
      return inline.tokens ? inlineElements(inline.tokens, style) : [text(decodeEntities(String(inline.text)), style)];
    case 'escape':
      return [text(String(inline.text), style)];
    case 'strong':
      return inlineElements((token as Tokens.Strong).tokens, withStyle(style, 'bold'));
    case 'em':
      return inlineElements((token as Tokens.Em).tokens, withStyle(style, 'italic'));
    case 'del':
      return inlineElements((token as Tokens.Del).tokens, withStyle(style, 'lineThrough'));
    case 'codespan':
      return [text(`\`${decodeEntities((token as Tokens.Codespan).text)}\``, style)];
    case 'br':
      return [text('\n', style)];
    case 'link': {
      const link = token as Tokens.Link;
      return [anchor(plainText(link.tokens) || link.href, link.href, style)];
    }
    case 'image': {
      const image = token as Tokens.Image;
      return [anchor(image.text || image.href, image.href, style)];
    }
    default:
      return [text(String(inline.raw ?? inline.text ?? ''), style)];
  }
}

/** Feishu links want an http(s) address; anything else stays readable as `label (address)`. */
function anchor(label: string, href: string, style: PostStyle[]): PostElement {
  if (!LINKABLE.test(href)) return text(label === href ? href : `${label} (${href})`, style);
  return { tag: 'a', text: label, href, ...(style.length > 0 ? { style } : {}) };
}

function text(value: string, style: PostStyle[]): PostElement {
  return { tag: 'text', text: value, ...(style.length > 0 ? { style } : {}) };
}

function withStyle(style: PostStyle[], added: PostStyle): PostStyle[] {
  return style.includes(added) ? style : [...style, added];
}

/** Neighbouring text elements with the same style become one: fewer elements, a smaller body. */
function merge(elements: PostElement[]): PostElement[] {
  const merged: PostElement[] = [];
  for (const element of elements) {
    const previous = merged.at(-1);
    if (element.tag === 'text' && element.text === '') continue;
    if (previous?.tag === 'text' && element.tag === 'text' && sameStyle(previous.style, element.style)) {
      merged[merged.length - 1] = { ...previous, text: previous.text + element.text };
    } else {
      merged.push(element);
    }
  }
  return merged;
}

function sameStyle(first: PostStyle[] | undefined, second: PostStyle[] | undefined): boolean {
  return (first ?? []).join() === (second ?? []).join();
}

/** Elements whose text holds `\n` → one array of elements per line, as a post's paragraphs are. */
export function splitIntoLines(elements: PostElement[]): PostElement[][] {
  const lines: PostElement[][] = [[]];
  for (const element of elements) {
    if (element.tag !== 'text' || !element.text.includes('\n')) {
      (lines.at(-1) as PostElement[]).push(element);
      continue;
    }
    element.text.split('\n').forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part !== '') (lines.at(-1) as PostElement[]).push({ ...element, text: part });
    });
  }
  return lines;
}

/** The visible text of inline tokens (link labels). */
export function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      const inline = token as Tokens.Generic;
      if (Array.isArray(inline.tokens)) return plainText(inline.tokens);
      return inline.type === 'text' ? decodeEntities(String(inline.text)) : String(inline.text ?? '');
    })
    .join('');
}

export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return safeCodePoint(Number.parseInt(entity.slice(2), 16)) ?? whole;
    if (entity.startsWith('#')) return safeCodePoint(Number.parseInt(entity.slice(1), 10)) ?? whole;
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

function safeCodePoint(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
