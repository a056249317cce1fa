import { lexer } from 'marked';

/** Feishu renders at most four tables in one markdown element. */
const TABLES_PER_ELEMENT = 4;

export interface MarkdownElement {
  tag: 'markdown';
  content: string;
}

/** A card in JSON 2.0 (needed for tables and headings in markdown); `update_multi` lets `im.message.patch` replace it. */
export interface CardContent {
  schema: '2.0';
  config: { update_multi: true; width_mode: 'fill' };
  body: { elements: MarkdownElement[] };
}

/**
 * Markdown → an interactive card whose body is markdown elements: the card's markdown renders
 * CommonMark (code blocks with highlighting, tables, headings, quotes, lists) and a few HTML-like tags,
 * so `<` outside code is escaped (`&#60;`, as Feishu documents) to keep the model's text literal.
 */
export function markdownToCard(markdown: string): CardContent {
  return {
    schema: '2.0',
    config: { update_multi: true, width_mode: 'fill' },
    body: { elements: markdownGroups(markdown.replace(/\r\n?/g, '\n')).map((content) => ({ tag: 'markdown', content })) },
  };
}

/** Top-level blocks grouped so that no group holds more than four tables; code blocks are passed through untouched. */
function markdownGroups(markdown: string): string[] {
  const groups: string[] = [];
  let current = '';
  let tables = 0;
  for (const token of lexer(markdown)) {
    if (token.type === 'table') {
      if (tables === TABLES_PER_ELEMENT) {
        groups.push(current);
        current = '';
        tables = 0;
      }
      tables += 1;
    }
    current += token.type === 'code' ? token.raw : escapeOutsideCode(token.raw);
  }
  groups.push(current);
  const contents = groups.map((group) => group.trim()).filter((group) => group !== '');
  return contents.length > 0 ? contents : [''];
}

/** Escapes `<` in a block that may still hold fenced code (inside a list or quote) or code spans. */
function escapeOutsideCode(block: string): string {
  let fence: string | undefined;
  return block
    .split('\n')
    .map((line) => {
      const marker = /^\s*(?:>\s*|[-*+]\s+|\d+[.)]\s+)*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim().endsWith(marker)) fence = undefined;
        return line;
      }
      if (marker !== undefined) {
        fence = marker;
        return line;
      }
      return line.replace(/(`+)[^`]+?\1|</g, (match) => (match === '<' ? '&#60;' : match));
    })
    .join('\n');
}
