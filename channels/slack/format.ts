import { lexer, type Token, type Tokens } from 'marked';
import { decodeHtmlEntities, escapeKeepingMentions, escapeMrkdwn } from './mrkdwn-text.js';
import { textTable } from '../../src/core/text-table.js';

interface BlockContext {
  listDepth: number;
}

/** Slack has no nesting of the same marker (`*a *b* c*`), so an enclosing style is not repeated inside. */
interface InlineContext {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  insideLink: boolean;
}

const PLAIN: InlineContext = { bold: false, italic: false, strike: false, insideLink: false };
const HORIZONTAL_RULE = '──────────';
const LIST_MARKERS = ['•', '◦', '▪'];
const ALLOWED_LINK = /^(https?:\/\/|mailto:)/i;

/**
 * Markdown (as models write it) → Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, code, fenced code,
 * `<url|label>` links, `>` quotes, bullet lists; headings become bold lines, tables monospaced blocks.
 * `&`, `<` and `>` are escaped everywhere except in the mentions the model wrote (`<@U123>`).
 */
export function markdownToMrkdwn(markdown: string): string {
  const tokens = lexer(markdown.replace(/\r\n?/g, '\n'));
  return renderBlocks(tokens, { listDepth: 0 }, '\n\n').trim();
}

function renderBlocks(tokens: Token[], context: BlockContext, separator: string): string {
  return tokens
    .map((token) => renderBlock(token, context))
    .filter((rendered) => rendered !== '')
    .join(separator);
}

function renderBlock(token: Token, context: BlockContext): string {
  const block = token as Tokens.Generic;
  switch (block.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return '';
    case 'paragraph':
    case 'text':
      return block.tokens ? renderInline(block.tokens, PLAIN) : escapeKeepingMentions(decodeHtmlEntities(String(block.text)));
    case 'heading':
      return wrap('*', renderInline((token as Tokens.Heading).tokens, { ...PLAIN, bold: true }));
    case 'code':
      return codeBlock((token as Tokens.Code).text);
    case 'blockquote':
      return quote(renderBlocks((token as Tokens.Blockquote).tokens, context, '\n'));
    case 'list':
      return renderList(token as Tokens.List, context);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'hr':
      return HORIZONTAL_RULE;
    case 'html':
      return escapeMrkdwn(String(block.text ?? block.raw).trimEnd());
    default:
      return escapeMrkdwn(String(block.raw ?? '').trimEnd());
  }
}

function codeBlock(code: string): string {
  return '```\n' + escapeMrkdwn(code.replace(/\n+$/, '')) + '\n```';
}

/** Slack quotes line by line and does not nest quotes: every line gets one `>`. */
function quote(inner: string): string {
  return inner
    .split('\n')
    .map((line) => `> ${line.replace(/^(?:> ?)+/, '')}`.trimEnd())
    .join('\n');
}

function renderList(list: Tokens.List, context: BlockContext): string {
  const indent = '    '.repeat(context.listDepth);
  const bullet = LIST_MARKERS[Math.min(context.listDepth, LIST_MARKERS.length - 1)] as string;
  const first = typeof list.start === 'number' ? list.start : 1;
  const itemContext = { listDepth: context.listDepth + 1 };
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${first + index}. ` : `${bullet} `;
      const checkbox = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const nestedLists = item.tokens.filter((child) => child.type === 'list');
      const body = renderBlocks(item.tokens.filter((child) => child.type !== 'list'), itemContext, '\n');
      const nested = renderBlocks(nestedLists, itemContext, '\n');
      return [`${indent}${marker}${checkbox}${body}`, nested].filter((part) => part !== '').join('\n');
    })
    .join('\n');
}

/** mrkdwn has no tables: a code block with padded columns reads best. */
function renderTable(table: Tokens.Table): string {
  const header = table.header.map((cell) => plainInline(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainInline(cell.tokens)));
  return codeBlock(textTable(header, rows, table.align));
}

function renderInline(tokens: Token[], context: InlineContext): string {
  return tokens.map((token) => renderInlineToken(token, context)).join('');
}

function renderInlineToken(token: Token, context: InlineContext): string {
  const inline = token as Tokens.Generic;
  switch (inline.type) {
    case 'text':
      return inline.tokens ? renderInline(inline.tokens, context) : escapeKeepingMentions(decodeHtmlEntities(String(inline.text)));
    case 'escape':
      return escapeMrkdwn(String(inline.text));
    case 'strong':
      return styled('*', 'bold', (token as Tokens.Strong).tokens, context);
    case 'em':
      return styled('_', 'italic', (token as Tokens.Em).tokens, context);
    case 'del':
      return styled('~', 'strike', (token as Tokens.Del).tokens, context);
    case 'codespan': {
      const code = escapeMrkdwn(decodeHtmlEntities((token as Tokens.Codespan).text));
      return context.insideLink ? code : '`' + code + '`';
    }
    case 'br':
      return '\n';
    case 'link':
      return renderLink(token as Tokens.Link, context);
    case 'image':
      return renderImage(token as Tokens.Image, context);
    case 'html':
      return /^<br\s*\/?>$/i.test(String(inline.text).trim()) ? '\n' : escapeMrkdwn(String(inline.text));
    default:
      return escapeMrkdwn(String(inline.raw ?? ''));
  }
}

function styled(marker: string, style: 'bold' | 'italic' | 'strike', tokens: Token[], context: InlineContext): string {
  const inner = renderInline(tokens, { ...context, [style]: true });
  return context[style] || context.insideLink ? inner : wrap(marker, inner);
}

/** Markers around surrounding spaces do not render in Slack (`* bold*`), so the spaces go outside. */
function wrap(marker: string, inner: string): string {
  const core = inner.trim();
  if (core === '') return inner;
  const start = inner.indexOf(core);
  return `${inner.slice(0, start)}${marker}${core}${marker}${inner.slice(start + core.length)}`;
}

function renderLink(link: Tokens.Link, context: InlineContext): string {
  const label = renderInline(link.tokens, { ...context, insideLink: true });
  if (context.insideLink || !ALLOWED_LINK.test(link.href)) {
    return label === '' || label === escapeMrkdwn(link.href) ? escapeMrkdwn(link.href) : `${label} (${escapeMrkdwn(link.href)})`;
  }
  return slackLink(link.href, label);
}

function renderImage(image: Tokens.Image, context: InlineContext): string {
  const label = escapeMrkdwn(image.text);
  if (context.insideLink || !ALLOWED_LINK.test(image.href)) return label || escapeMrkdwn(image.href);
  return slackLink(image.href, label);
}

/** `<url|label>`; a `|` would end the URL early, so it is percent-encoded (`>` is escaped with the rest). */
function slackLink(href: string, label: string): string {
  const url = escapeMrkdwn(href.replace(/\|/g, '%7C'));
  return label === '' || label === escapeMrkdwn(href) ? `<${url}>` : `<${url}|${label}>`;
}

/** The text of inline tokens without any markup (table cells). */
function plainInline(tokens: Token[]): string {
  return tokens
    .map((token) => {
      const inline = token as Tokens.Generic;
      if (inline.type === 'br') return ' ';
      if (Array.isArray(inline.tokens)) return plainInline(inline.tokens);
      return decodeHtmlEntities(String(inline.text ?? inline.raw ?? ''));
    })
    .join('');
}
