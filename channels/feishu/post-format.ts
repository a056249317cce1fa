import { lexer, type Token, type Tokens } from 'marked';
import { decodeEntities, inlineElements, splitIntoLines, type PostElement, type PostStyle } from './post-inline.js';

export type { PostElement, PostStyle } from './post-inline.js';

/** The content of a `post` (rich text) message: paragraphs (rendered as lines) of elements. */
export interface PostContent {
  zh_cn: { content: PostElement[][] };
}

/**
 * Markdown → a Feishu rich-text post. Bold, italic and strikethrough become text styles, links `a`
 * elements, fenced code a `code_block`, rules an `hr`; headings are bold lines, lists get `•` / `1.`
 * markers, quotes a `> ` prefix, inline code keeps its backticks (a post has no code style).
 * Tables are laid out as `a | b` lines, but answers with tables or code blocks go out as cards.
 */
export function markdownToPost(markdown: string): PostContent {
  const lines = renderBlocks(lexer(markdown.replace(/\r\n?/g, '\n')), true);
  while (lines.length > 0 && isBlank(lines.at(-1) as PostElement[])) lines.pop();
  return { zh_cn: { content: lines } };
}

function renderBlocks(tokens: Token[], separateWithBlankLine: boolean): PostElement[][] {
  const lines: PostElement[][] = [];
  for (const token of tokens) {
    const rendered = renderBlock(token);
    if (rendered.length === 0) continue;
    if (separateWithBlankLine && lines.length > 0) lines.push([{ tag: 'text', text: '' }]);
    lines.push(...rendered);
  }
  return lines;
}

function renderBlock(token: Token): PostElement[][] {
  const block = token as Tokens.Generic;
  switch (block.type) {
    case 'space':
    case 'def':
      return [];
    case 'paragraph':
    case 'text':
      return splitIntoLines(block.tokens ? inlineElements(block.tokens, []) : [{ tag: 'text', text: decodeEntities(String(block.text)) }]);
    case 'heading':
      return splitIntoLines(inlineElements((token as Tokens.Heading).tokens, ['bold']));
    case 'code': {
      const code = token as Tokens.Code;
      const language = code.lang?.trim().split(/\s+/)[0];
      return [[{ tag: 'code_block', ...(language ? { language: language.toUpperCase() } : {}), text: code.text }]];
    }
    case 'blockquote':
      return renderBlocks((token as Tokens.Blockquote).tokens, false).map((line) => (isTextLine(line) ? [{ tag: 'text', text: '> ' }, ...line] : line));
    case 'list':
      return renderList(token as Tokens.List, 0);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'hr':
      return [[{ tag: 'hr' }]];
    default:
      return splitIntoLines([{ tag: 'text', text: String(block.text ?? block.raw ?? '').trimEnd() }]);
  }
}

function renderList(list: Tokens.List, depth: number): PostElement[][] {
  const indent = '    '.repeat(depth);
  const first = typeof list.start === 'number' ? list.start : 1;
  return list.items.flatMap((item, index) => {
    const marker = `${indent}${list.ordered ? `${first + index}.` : '•'} ${item.task ? (item.checked ? '☑ ' : '☐ ') : ''}`;
    const body = renderBlocks(item.tokens.filter((child) => child.type !== 'list'), false);
    const nested = item.tokens.filter((child): child is Tokens.List => child.type === 'list').flatMap((child) => renderList(child, depth + 1));
    const lines = body.length > 0 ? body : [[]];
    return [
      ...lines.map((line, lineIndex): PostElement[] => (isTextLine(line) ? [{ tag: 'text', text: lineIndex === 0 ? marker : `${indent}   ` }, ...line] : line)),
      ...nested,
    ];
  });
}

function renderTable(table: Tokens.Table): PostElement[][] {
  const row = (cells: Tokens.TableCell[], style: PostStyle[]): PostElement[] =>
    cells.flatMap((cell, index) => [...(index > 0 ? [{ tag: 'text' as const, text: ' | ' }] : []), ...inlineElements(cell.tokens, style)]);
  return [row(table.header, ['bold']), ...table.rows.map((cells) => row(cells, []))];
}

function isTextLine(line: PostElement[]): boolean {
  return line.every((element) => element.tag === 'text' || element.tag === 'a');
}

function isBlank(line: PostElement[]): boolean {
  return line.every((element) => element.tag === 'text' && element.text.trim() === '');
}
