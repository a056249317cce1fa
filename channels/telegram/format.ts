import { lexer, type Token, type Tokens } from 'marked';
import { decodeEntities, escapeHtml } from './html-text.js';
import { renderInline, plainInline } from './format-inline.js';
import { textTable } from '../../src/core/text-table.js';

interface BlockContext {
  insideBlockquote: boolean;
  listDepth: number;
}

const HORIZONTAL_RULE = '──────────';

/**
 * Markdown (as models write it) → the HTML subset Telegram accepts with `parse_mode: HTML`.
 * Anything Telegram has no tag for is rendered as escaped text, so the output always parses.
 */
export function markdownToTelegramHtml(markdown: string): string {
  const tokens = lexer(markdown.replace(/\r\n?/g, '\n'));
  return renderBlocks(tokens, { insideBlockquote: false, listDepth: 0 }, '\n\n').trim();
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
      return block.tokens ? renderInline(block.tokens) : escapeHtml(decodeEntities(String(block.text)));
    case 'heading':
      return `<b>${renderInline((token as Tokens.Heading).tokens)}</b>`;
    case 'code':
      return renderCode(token as Tokens.Code);
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, { ...context, insideBlockquote: true }, '\n');
      // Telegram rejects a blockquote inside a blockquote: the inner one keeps its text only.
      return context.insideBlockquote ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list':
      return renderList(token as Tokens.List, context);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'hr':
      return HORIZONTAL_RULE;
    case 'html':
      return escapeHtml(String(block.text ?? block.raw).trimEnd());
    default:
      return escapeHtml(String(block.raw ?? '').trimEnd());
  }
}

function renderCode(token: Tokens.Code): string {
  const code = escapeHtml(token.text);
  const language = token.lang?.trim().split(/\s+/)[0]?.replace(/[^\w+#.-]/g, '');
  return language ? `<pre><code class="language-${language}">${code}</code></pre>` : `<pre>${code}</pre>`;
}

function renderList(list: Tokens.List, context: BlockContext): string {
  const indent = '  '.repeat(context.listDepth);
  const first = typeof list.start === 'number' ? list.start : 1;
  const itemContext = { ...context, listDepth: context.listDepth + 1 };
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${first + index}. ` : '• ';
      const checkbox = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const nestedLists = item.tokens.filter((child) => child.type === 'list');
      const body = renderBlocks(item.tokens.filter((child) => child.type !== 'list'), itemContext, '\n');
      const nested = renderBlocks(nestedLists, itemContext, '\n');
      return [`${indent}${marker}${checkbox}${body}`, nested].filter((part) => part !== '').join('\n');
    })
    .join('\n');
}

/** Telegram has no tables: a monospaced block with padded columns reads best. */
function renderTable(table: Tokens.Table): string {
  const header = table.header.map((cell) => plainInline(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainInline(cell.tokens)));
  return `<pre>${escapeHtml(textTable(header, rows, table.align))}</pre>`;
}
