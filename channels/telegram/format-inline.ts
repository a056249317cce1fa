import type { Token, Tokens } from 'marked';
import { decodeEntities, escapeAttribute, escapeHtml } from './html-text.js';

interface InlineContext {
  /** Telegram lets nothing but bold/italic/underline/strike/spoiler sit inside a link. */
  insideLink: boolean;
}

/** Raw inline HTML a model may write that Telegram understands; any other tag is shown as text. */
const INLINE_TAGS: Record<string, string> = { b: 'b', strong: 'b', i: 'i', em: 'i', u: 'u', ins: 'u', s: 's', strike: 's', del: 's' };
const ALLOWED_LINK = /^(https?:\/\/|tg:\/\/|mailto:)/i;

export function renderInline(tokens: Token[], context: InlineContext = { insideLink: false }): string {
  let output = '';
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    const pair = token.type === 'html' ? matchingHtmlPair(tokens, index) : undefined;
    if (pair) {
      output += `<${pair.tag}>${renderInline(tokens.slice(index + 1, pair.closeIndex), context)}</${pair.tag}>`;
      index = pair.closeIndex;
    } else {
      output += renderInlineToken(token, context);
    }
  }
  return output;
}

function renderInlineToken(token: Token, context: InlineContext): string {
  const inline = token as Tokens.Generic;
  switch (inline.type) {
    case 'text':
      return inline.tokens ? renderInline(inline.tokens, context) : escapeHtml(decodeEntities(String(inline.text)));
    case 'escape':
      return escapeHtml(String(inline.text));
    case 'strong':
      return `<b>${renderInline((token as Tokens.Strong).tokens, context)}</b>`;
    case 'em':
      return `<i>${renderInline((token as Tokens.Em).tokens, context)}</i>`;
    case 'del':
      return `<s>${renderInline((token as Tokens.Del).tokens, context)}</s>`;
    case 'codespan': {
      const code = escapeHtml((token as Tokens.Codespan).text);
      return context.insideLink ? code : `<code>${code}</code>`;
    }
    case 'br':
      return '\n';
    case 'link':
      return renderLink(token as Tokens.Link, context);
    case 'image':
      return renderImage(token as Tokens.Image, context);
    case 'html':
      return /^<br\s*\/?>$/i.test(String(inline.text).trim()) ? '\n' : escapeHtml(String(inline.text));
    default:
      return escapeHtml(String(inline.raw ?? ''));
  }
}

function renderLink(link: Tokens.Link, context: InlineContext): string {
  const text = renderInline(link.tokens, { insideLink: true }) || escapeHtml(link.href);
  if (context.insideLink || !ALLOWED_LINK.test(link.href)) return text;
  return `<a href="${escapeAttribute(link.href)}">${text}</a>`;
}

function renderImage(image: Tokens.Image, context: InlineContext): string {
  const label = escapeHtml(image.text || image.href);
  if (context.insideLink || !ALLOWED_LINK.test(image.href)) return label;
  return `<a href="${escapeAttribute(image.href)}">${label}</a>`;
}

/** `<u>` … `</u>` among the same siblings: the pair becomes a Telegram tag, a lone half stays text. */
function matchingHtmlPair(tokens: Token[], openIndex: number): { tag: string; closeIndex: number } | undefined {
  const openName = /^<([a-z]+)>$/i.exec(String((tokens[openIndex] as Tokens.Generic).text).trim())?.[1]?.toLowerCase();
  const tag = openName === undefined ? undefined : INLINE_TAGS[openName];
  if (tag === undefined) return undefined;
  let depth = 0;
  for (let index = openIndex + 1; index < tokens.length; index += 1) {
    const token = tokens[index] as Tokens.Generic;
    if (token.type !== 'html') continue;
    const text = String(token.text).trim().toLowerCase();
    if (text === `<${openName}>`) depth += 1;
    if (text === `</${openName}>`) {
      if (depth === 0) return { tag, closeIndex: index };
      depth -= 1;
    }
  }
  return undefined;
}

/** The text of inline tokens without any markup (table cells). */
export function plainInline(tokens: Token[]): string {
  return tokens
    .map((token) => {
      const inline = token as Tokens.Generic;
      if (inline.type === 'br') return ' ';
      if (Array.isArray(inline.tokens)) return plainInline(inline.tokens);
      if (inline.type === 'text') return decodeEntities(String(inline.text));
      return String(inline.text ?? inline.raw ?? '');
    })
    .join('');
}
