import { lexer } from 'marked';
import { markdownWalker, plainInline, type MarkdownRenderer } from '../shared/index.js';
import { escapeHtml } from './html-text.js';
import { plainCell, telegramInline, type TelegramContext } from './format-inline.js';
import { textTable } from '../../src/core/text-table.js';

const HORIZONTAL_RULE = '──────────';

/** Block Markdown → Telegram HTML; inline leaves in `format-inline.ts`. */
const telegramRenderer: MarkdownRenderer<string, string, TelegramContext> = {
  ...telegramInline,
  joinBlocks: (parts, separation) => parts.filter((part) => part !== '').join(separation === 'paragraph' ? '\n\n' : '\n'),
  paragraph: (inline) => inline,
  heading: (inner, context) => `<b>${inner(context)}</b>`,
  code(code) {
    const escaped = escapeHtml(code.text);
    const language = code.lang?.trim().split(/\s+/)[0]?.replace(/[^\w+#.-]/g, '');
    return language ? `<pre><code class="language-${language}">${escaped}</code></pre>` : `<pre>${escaped}</pre>`;
  },
  blockquote(inner, context) {
    const text = inner({ ...context, insideBlockquote: true });
    // Telegram rejects a blockquote inside a blockquote: the inner one keeps its text only.
    return context.insideBlockquote ? text : `<blockquote>${text}</blockquote>`;
  },
  listItemContext: (context) => ({ ...context, listDepth: context.listDepth + 1 }),
  listItem(item, body, nested, context) {
    const marker = item.ordered ? `${item.number}. ` : '• ';
    const checkbox = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    return [`${'  '.repeat(context.listDepth)}${marker}${checkbox}${body}`, nested].filter((part) => part !== '').join('\n');
  },
  /** Telegram has no tables: a monospaced block with padded columns reads best. */
  table(table) {
    const header = table.header.map((cell) => plainInline(cell.tokens, plainCell));
    const rows = table.rows.map((row) => row.map((cell) => plainInline(cell.tokens, plainCell)));
    return `<pre>${escapeHtml(textTable(header, rows, table.align))}</pre>`;
  },
  rule: () => HORIZONTAL_RULE,
  checkbox: () => '',
  blockHtml: (token) => escapeHtml(String(token.text ?? token.raw).trimEnd()),
  otherBlock: (token) => escapeHtml(String(token.raw ?? '').trimEnd()),
};

const walker = markdownWalker(telegramRenderer);

/**
 * Markdown (as models write it) → the HTML subset Telegram accepts with `parse_mode: HTML`.
 * Anything Telegram has no tag for is rendered as escaped text, so the output always parses.
 */
export function markdownToTelegramHtml(markdown: string): string {
  if (isPlainProse(markdown)) return markdown.trim();
  return renderMarkdown(markdown);
}

/** Every answer through marked's lexer and the walker (the fast path above must agree with it: see its test). */
export function renderMarkdown(markdown: string): string {
  const tokens = lexer(markdown.replace(/\r\n?/g, '\n'));
  return walker.blocks(tokens, { insideLink: false, insideBlockquote: false, listDepth: 0 }, 'paragraph').trim();
}

/**
 * One line of words, digits and punctuation that Markdown never reads (no list or heading start, no emphasis,
 * link, code, HTML or entity character, no autolink): it renders as itself. A short plain answer is common,
 * and the lexer costs more than the rest of sending it.
 */
const PLAIN_PROSE = /^\p{L}[\p{L}\p{M}\p{N} ,.;?'"%/]*$/u;

export function isPlainProse(markdown: string): boolean {
  return markdown.length <= 2_000 && PLAIN_PROSE.test(markdown) && !/www\./i.test(markdown);
}
