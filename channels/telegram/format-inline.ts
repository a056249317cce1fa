import type { Tokens } from 'marked';
import type { MarkdownRenderer } from '../shared/index.js';
import { decodeEntities, escapeAttribute, escapeHtml } from './html-text.js';

export interface TelegramContext {
  /** Telegram lets nothing but bold/italic/underline/strike/spoiler sit inside a link. */
  insideLink: boolean;
  /** Telegram rejects a blockquote inside a blockquote. */
  insideBlockquote: boolean;
  listDepth: number;
}

type InlineLeaves = Pick<
  MarkdownRenderer<string, string, TelegramContext>,
  'joinInline' | 'text' | 'escape' | 'style' | 'codespan' | 'lineBreak' | 'link' | 'image' | 'inlineHtml' | 'otherInline' | 'htmlPairs'
>;

/** Raw inline HTML a model may write that Telegram understands; any other tag is shown as text. */
const INLINE_TAGS: Record<string, string> = { b: 'b', strong: 'b', i: 'i', em: 'i', u: 'u', ins: 'u', s: 's', strike: 's', del: 's' };
const STYLE_TAGS = { bold: 'b', italic: 'i', strike: 's' } as const;
const ALLOWED_LINK = /^(https?:\/\/|tg:\/\/|mailto:)/i;

/** Inline Markdown → Telegram HTML. */
export const telegramInline: InlineLeaves = {
  joinInline: (parts) => parts.join(''),
  text: (text) => escapeHtml(decodeEntities(text)),
  escape: (text) => escapeHtml(text),
  style: (style, inner, context) => `<${STYLE_TAGS[style]}>${inner(context)}</${STYLE_TAGS[style]}>`,
  codespan: (code, context) => (context.insideLink ? escapeHtml(code) : `<code>${escapeHtml(code)}</code>`),
  lineBreak: () => '\n',
  link(link, label, context) {
    const text = label({ ...context, insideLink: true }) || escapeHtml(link.href);
    if (context.insideLink || !ALLOWED_LINK.test(link.href)) return text;
    return `<a href="${escapeAttribute(link.href)}">${text}</a>`;
  },
  image(image, context) {
    const label = escapeHtml(image.text || image.href);
    if (context.insideLink || !ALLOWED_LINK.test(image.href)) return label;
    return `<a href="${escapeAttribute(image.href)}">${label}</a>`;
  },
  inlineHtml: (token) => (/^<br\s*\/?>$/i.test(String(token.text).trim()) ? '\n' : escapeHtml(String(token.text))),
  otherInline: (token) => escapeHtml(String(token.raw ?? '')),
  htmlPairs: {
    tagFor: (name) => INLINE_TAGS[name],
    render: (tag, inner) => `<${tag}>${inner}</${tag}>`,
  },
};

/** A table cell's text without markup. */
export function plainCell(token: Tokens.Generic): string {
  if (token.type === 'br') return ' ';
  if (token.type === 'text') return decodeEntities(String(token.text));
  return String(token.text ?? token.raw ?? '');
}
