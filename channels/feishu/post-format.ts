import { lexer } from 'marked';
import { markdownWalker, type MarkdownRenderer } from '../shared/index.js';
import { postInline, splitIntoLines, text, type PostContext, type PostElement } from './post-inline.js';

export type { PostElement, PostStyle } from './post-inline.js';

/** The content of a `post` (rich text) message: paragraphs (rendered as lines) of elements. */
export interface PostContent {
  zh_cn: { content: PostElement[][] };
}


const postRenderer: MarkdownRenderer<PostElement[], PostElement[][], PostContext> = {
  ...postInline,
  joinBlocks(parts, separation) {
    const lines: PostElement[][] = [];
    for (const part of parts) {
      if (part.length === 0) continue;
      if (separation === 'paragraph' && lines.length > 0) lines.push([{ tag: 'text', text: '' }]);
      lines.push(...part);
    }
    return lines;
  },
  paragraph: (inline) => splitIntoLines(inline),
  heading: (inner, context) => splitIntoLines(inner({ ...context, style: ['bold'] })),
  code(code) {
    const language = code.lang?.trim().split(/\s+/)[0];
    return [[{ tag: 'code_block', ...(language ? { language: language.toUpperCase() } : {}), text: code.text }]];
  },
  // a list in a quote starts at the margin again
  blockquote: (inner, context) => inner({ ...context, listDepth: 0 }).map((line) => (isTextLine(line) ? [{ tag: 'text', text: '> ' }, ...line] : line)),
  listItemContext: (context) => ({ ...context, listDepth: context.listDepth + 1 }),
  listItem(item, body, nested, context) {
    const indent = '    '.repeat(context.listDepth);
    const marker = `${indent}${item.ordered ? `${item.number}.` : '•'} ${item.task ? (item.checked ? '☑ ' : '☐ ') : ''}`;
    const lines = body.length > 0 ? body : [[]];
    return [...lines.map((line, lineIndex): PostElement[] => (isTextLine(line) ? [{ tag: 'text', text: lineIndex === 0 ? marker : `${indent}   ` }, ...line] : line)), ...nested];
  },
  table(table, cell, context) {
    const row = (cells: typeof table.header, style: PostContext['style']): PostElement[] =>
      cells.flatMap((one, index) => [...(index > 0 ? [{ tag: 'text' as const, text: ' | ' }] : []), ...cell(one.tokens, { ...context, style })]);
    return [row(table.header, ['bold']), ...table.rows.map((cells) => row(cells, []))];
  },
  rule: () => [[{ tag: 'hr' }]],
  checkbox: (token) => asText(token),
  blockHtml: (token) => asText(token),
  otherBlock: (token) => asText(token),
};

const walker = markdownWalker(postRenderer);

/**
 * Markdown → a Feishu rich-text post. Bold, italic and strikethrough become text styles, links `a`
 * elements, fenced code a `code_block`, rules an `hr`; headings are bold lines, lists get `•` / `1.`
 * markers, quotes a `> ` prefix, inline code keeps its backticks (a post has no code style).
 * Tables are laid out as `a | b` lines, but answers with tables or code blocks go out as cards.
 */
export function markdownToPost(markdown: string): PostContent {
  const lines = walker.blocks(lexer(markdown.replace(/\r\n?/g, '\n')), { style: [], listDepth: 0 }, 'paragraph');
  while (lines.length > 0 && isBlank(lines.at(-1) as PostElement[])) lines.pop();
  return { zh_cn: { content: lines } };
}

function asText(token: { text?: unknown; raw?: unknown }): PostElement[][] {
  return splitIntoLines([text(String(token.text ?? token.raw ?? '').trimEnd(), [])]);
}

function isTextLine(line: PostElement[]): boolean {
  return line.every((element) => element.tag === 'text' || element.tag === 'a');
}

function isBlank(line: PostElement[]): boolean {
  return line.every((element) => element.tag === 'text' && element.text.trim() === '');
}
