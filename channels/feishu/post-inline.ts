import type { Tokens } from 'marked';
import { plainInline, type InlineStyle, type MarkdownRenderer } from '../shared/index.js';

export type PostStyle = 'bold' | 'italic' | 'underline' | 'lineThrough';

export type PostElement =
  | { tag: 'text'; text: string; style?: PostStyle[] }
  | { tag: 'a'; text: string; href: string; style?: PostStyle[] }
  | { tag: 'code_block'; language?: string; text: string }
  | { tag: 'hr' };

const LINKABLE = /^(https?:\/\/|mailto:)/i;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export interface PostContext {
  style: PostStyle[];
  listDepth: number;
}

type InlineLeaves = Pick<
  MarkdownRenderer<PostElement[], PostElement[][], PostContext>,
  'joinInline' | 'text' | 'escape' | 'style' | 'codespan' | 'lineBreak' | 'link' | 'image' | 'inlineHtml' | 'otherInline'
>;

const POST_STYLES: Record<InlineStyle, PostStyle> = { bold: 'bold', italic: 'italic', strike: 'lineThrough' };

/** Inline Markdown → post elements; a text element's `\n` marks a line break (see splitIntoLines). */
export const postInline: InlineLeaves = {
  joinInline: (parts) => merge(parts.flat()),
  text: (value, { style }) => [text(decodeEntities(value), style)],
  escape: (value, { style }) => [text(value, style)],
  style: (added, inner, context) => inner({ ...context, style: withStyle(context.style, POST_STYLES[added]) }),
  codespan: (code, { style }) => [text(`\`${decodeEntities(code)}\``, style)],
  lineBreak: ({ style }) => [text('\n', style)],
  link: (link, _label, { style }) => [anchor(plainInline(link.tokens, plainLeaf) || link.href, link.href, style)],
  image: (image, { style }) => [anchor(image.text || image.href, image.href, style)],
  inlineHtml: (token, { style }) => [text(String(token.raw ?? token.text ?? ''), style)],
  otherInline: (token, { style }) => [text(String(token.raw ?? token.text ?? ''), style)],
};

/** Feishu links want an http(s) address; anything else stays readable as `label (address)`. */
function anchor(label: string, href: string, style: PostStyle[]): PostElement {
  if (!LINKABLE.test(href)) return text(label === href ? href : `${label} (${href})`, style);
  return { tag: 'a', text: label, href, ...(style.length > 0 ? { style } : {}) };
}

export function text(value: string, style: PostStyle[]): PostElement {
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

/** The visible text of a link label's token. */
function plainLeaf(token: Tokens.Generic): string {
  return token.type === 'text' ? decodeEntities(String(token.text)) : String(token.text ?? '');
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
