import { lexer } from 'marked';
import { markdownWalker, plainInline, type InlineStyle, type MarkdownRenderer } from '../shared/index.js';
import { decodeHtmlEntities, escapeKeepingMentions, escapeMrkdwn } from './mrkdwn-text.js';
import { textTable } from '../../src/core/text-table.js';

/** Slack has no nesting of the same marker (`*a *b* c*`), so an enclosing style is not repeated inside. */
interface SlackContext {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  insideLink: boolean;
  listDepth: number;
}

const HORIZONTAL_RULE = '──────────';
const LIST_MARKERS = ['•', '◦', '▪'];
const STYLE_MARKERS: Record<InlineStyle, string> = { bold: '*', italic: '_', strike: '~' };
const ALLOWED_LINK = /^(https?:\/\/|mailto:)/i;

const slackRenderer: MarkdownRenderer<string, string, SlackContext> = {
  joinInline: (parts) => parts.join(''),
  text: (text) => escapeKeepingMentions(decodeHtmlEntities(text)),
  escape: (text) => escapeMrkdwn(text),
  style(style, inner, context) {
    const text = inner({ ...context, [style]: true });
    return context[style] || context.insideLink ? text : wrap(STYLE_MARKERS[style], text);
  },
  codespan(code, context) {
    const text = escapeMrkdwn(decodeHtmlEntities(code));
    return context.insideLink ? text : '`' + text + '`';
  },
  lineBreak: () => '\n',
  link(link, label, context) {
    const text = label({ ...context, insideLink: true });
    if (context.insideLink || !ALLOWED_LINK.test(link.href)) {
      return text === '' || text === escapeMrkdwn(link.href) ? escapeMrkdwn(link.href) : `${text} (${escapeMrkdwn(link.href)})`;
    }
    return slackLink(link.href, text);
  },
  image(image, context) {
    const label = escapeMrkdwn(image.text);
    if (context.insideLink || !ALLOWED_LINK.test(image.href)) return label || escapeMrkdwn(image.href);
    return slackLink(image.href, label);
  },
  inlineHtml: (token) => (/^<br\s*\/?>$/i.test(String(token.text).trim()) ? '\n' : escapeMrkdwn(String(token.text))),
  otherInline: (token) => escapeMrkdwn(String(token.raw ?? '')),

  joinBlocks: (parts, separation) => parts.filter((part) => part !== '').join(separation === 'paragraph' ? '\n\n' : '\n'),
  paragraph: (inline) => inline,
  heading: (inner, context) => wrap('*', inner({ ...context, bold: true })),
  code: (code) => codeBlock(code.text),
  blockquote: (inner, context) => quote(inner(context)),
  listItemContext: (context) => ({ ...context, listDepth: context.listDepth + 1 }),
  listItem(item, body, nested, context) {
    const bullet = LIST_MARKERS[Math.min(context.listDepth, LIST_MARKERS.length - 1)] as string;
    const marker = item.ordered ? `${item.number}. ` : `${bullet} `;
    const checkbox = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    return [`${'    '.repeat(context.listDepth)}${marker}${checkbox}${body}`, nested].filter((part) => part !== '').join('\n');
  },
  /** mrkdwn has no tables: a code block with padded columns reads best. */
  table(table) {
    const header = table.header.map((cell) => plainInline(cell.tokens, plainCell));
    const rows = table.rows.map((row) => row.map((cell) => plainInline(cell.tokens, plainCell)));
    return codeBlock(textTable(header, rows, table.align));
  },
  rule: () => HORIZONTAL_RULE,
  checkbox: () => '',
  blockHtml: (token) => escapeMrkdwn(String(token.text ?? token.raw).trimEnd()),
  otherBlock: (token) => escapeMrkdwn(String(token.raw ?? '').trimEnd()),
};

const walker = markdownWalker(slackRenderer);
const TOP: SlackContext = { bold: false, italic: false, strike: false, insideLink: false, listDepth: 0 };

/**
 * Markdown (as models write it) → Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, code, fenced code,
 * `<url|label>` links, `>` quotes, bullet lists; headings become bold lines, tables monospaced blocks.
 * `&`, `<` and `>` are escaped everywhere except in the mentions the model wrote (`<@U123>`).
 */
export function markdownToMrkdwn(markdown: string): string {
  const tokens = lexer(markdown.replace(/\r\n?/g, '\n'));
  return walker.blocks(tokens, TOP, 'paragraph').trim();
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

/** Markers around surrounding spaces do not render in Slack (`* bold*`), so the spaces go outside. */
function wrap(marker: string, inner: string): string {
  const core = inner.trim();
  if (core === '') return inner;
  const start = inner.indexOf(core);
  return `${inner.slice(0, start)}${marker}${core}${marker}${inner.slice(start + core.length)}`;
}

/** `<url|label>`; a `|` would end the URL early, so it is percent-encoded (`>` is escaped with the rest). */
function slackLink(href: string, label: string): string {
  const url = escapeMrkdwn(href.replace(/\|/g, '%7C'));
  return label === '' || label === escapeMrkdwn(href) ? `<${url}>` : `<${url}|${label}>`;
}

/** A table cell's text without markup. */
function plainCell(token: { type: string; text?: unknown; raw?: unknown }): string {
  if (token.type === 'br') return ' ';
  return decodeHtmlEntities(String(token.text ?? token.raw ?? ''));
}
