import { lexer, type Token, type Tokens } from 'marked';
import { cutAfterLast, CutFinder, hardCut } from '../shared/index.js';

/**
 * Characters of Markdown per message. Feishu's own limit is on the request body (30 KB for post and
 * card messages, checked after rendering); this keeps a single message readable on a phone.
 */
export const FEISHU_TEXT_LIMIT = 4000;

/**
 * Splits Markdown into chunks of at most `limit` characters between top-level blocks; a block that is
 * too long on its own is cut at a line break, else a space, else anywhere. A fenced code block is cut
 * between lines and each part re-fenced with the same opening (language kept); a table is cut between
 * rows and each part repeats the header. Joined, the chunks hold all the text of the input.
 */
export function splitMarkdown(markdown: string, limit: number = FEISHU_TEXT_LIMIT): string[] {
  const source = markdown.replace(/\r\n?/g, '\n');
  if (source.trim() === '') return [];
  if (source.length <= limit) return [tidy(source)];
  const pieces = lexer(source).flatMap((token) => (token.raw.length <= limit ? [token.raw] : splitBlock(token, limit)));
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current !== '' && (current + piece).trimEnd().length > limit) {
      chunks.push(current);
      current = '';
    }
    current += piece;
  }
  chunks.push(current);
  return chunks.map(tidy).filter((chunk) => chunk !== '');
}

/** Plain text (notices) in pieces of at most `limit` characters, cut at line breaks or spaces; nothing trimmed. */
export function splitPlainText(text: string, limit: number = FEISHU_TEXT_LIMIT): string[] {
  return cutText(text, limit).filter((part) => part.trim() !== '');
}

function splitBlock(token: Token, limit: number): string[] {
  if (token.type === 'code') return splitCode(token as Tokens.Code, limit);
  if (token.type === 'table') return splitTable(token.raw, limit);
  return cutText(token.raw, limit);
}

function splitCode(token: Tokens.Code, limit: number): string[] {
  const fence = /^ {0,3}(`{3,}|~{3,})([^\n]*)/.exec(token.raw);
  const opening = fence ? `${fence[1]}${fence[2]}`.trimEnd() : '```';
  const closing = fence?.[1] ?? '```';
  const room = Math.max(1, limit - opening.length - closing.length - 4);
  const groups: string[][] = [[]];
  let size = 0;
  for (const line of token.text.split('\n').flatMap((whole) => (whole.length <= room ? [whole] : cutText(whole, room)))) {
    const group = groups.at(-1) as string[];
    if (group.length > 0 && size + 1 + line.length > room) {
      groups.push([line]);
      size = line.length;
    } else {
      size += (group.length > 0 ? 1 : 0) + line.length;
      group.push(line);
    }
  }
  return groups.map((lines) => `${opening}\n${lines.join('\n')}\n${closing}\n\n`);
}

function splitTable(raw: string, limit: number): string[] {
  const lines = raw.replace(/\n+$/, '').split('\n');
  const header = `${lines.slice(0, 2).join('\n')}\n`;
  if (header.length > limit / 2) return cutText(raw, limit);
  const parts: string[] = [];
  let current = header;
  for (const row of lines.slice(2)) {
    if (current !== header && current.length + row.length + 1 > limit) {
      parts.push(`${current}\n`);
      current = header;
    }
    current += `${row}\n`;
  }
  parts.push(`${current}\n`);
  return parts.flatMap((part) => (part.length <= limit ? [part] : cutText(part, limit)));
}

/** Cuts after the last line break that fits, else the last space, else at the limit (never inside a surrogate pair). */
function cutText(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const finder = new CutFinder<{ end: number }>(limit);
    for (const [character, kind] of [['\n', 'line'], [' ', 'word']] as const) {
      const end = cutAfterLast(rest, character, limit);
      if (end !== undefined) finder.offer({ end }, end, [kind]);
    }
    const cut = finder.best()?.end ?? hardCut(rest, limit);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts;
}

/** Leading blank lines and trailing whitespace go; leading spaces stay (they can make an indented code block). */
function tidy(chunk: string): string {
  return chunk.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}
