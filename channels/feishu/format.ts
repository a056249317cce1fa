import { lexer, type Token } from 'marked';
import { markdownToCard } from './card-format.js';
import type { OutgoingMessage } from './messages-api.js';
import { markdownToPost } from './post-format.js';
import { FEISHU_TEXT_LIMIT, splitMarkdown, splitPlainText } from './split.js';

/** Feishu refuses post and card request bodies over 30 KB; the rest is headroom for the envelope. */
export const MAX_BODY_BYTES = 28 * 1024;
/** Below this a chunk is not split further; only a pathological answer (thousands of tiny links) gets here. */
const MIN_CHUNK_CHARACTERS = 250;

/**
 * An answer in Markdown → the messages that carry it, in order: `post` messages for plain answers,
 * interactive cards (markdown elements) when it has fenced code blocks or tables, which a post cannot show.
 * Each message holds at most FEISHU_TEXT_LIMIT characters of Markdown and a body under MAX_BODY_BYTES.
 */
export function renderAnswer(markdown: string): OutgoingMessage[] {
  return render(markdown, needsCard(markdown) ? 'interactive' : 'post', FEISHU_TEXT_LIMIT);
}

/** The answer as cards only: what a live reply (a card patched in place) settles into. */
export function renderCards(markdown: string): OutgoingMessage[] {
  return render(markdown, 'interactive', FEISHU_TEXT_LIMIT);
}

/** The first card's worth of a partial answer, for a live reply; undefined while there is nothing to show. */
export function previewCard(markdownSoFar: string): OutgoingMessage | undefined {
  const [first] = splitMarkdown(markdownSoFar);
  return first === undefined ? undefined : render(first, 'interactive', FEISHU_TEXT_LIMIT)[0];
}

/** Plain text (notices), as `text` messages. */
export function renderText(text: string): OutgoingMessage[] {
  return splitPlainText(text.replace(/\r\n?/g, '\n')).map((part) => ({ msgType: 'text', content: JSON.stringify({ text: part }) }));
}

/** Fenced (or indented) code blocks and tables, anywhere, including inside lists and quotes. */
export function needsCard(markdown: string): boolean {
  const visit = (tokens: Token[]): boolean =>
    tokens.some((token) => {
      if (token.type === 'code' || token.type === 'table') return true;
      const nested = token as { tokens?: Token[]; items?: Token[] };
      return (nested.tokens !== undefined && visit(nested.tokens)) || (nested.items !== undefined && visit(nested.items));
    });
  return visit(lexer(markdown.replace(/\r\n?/g, '\n')));
}

export function bodyBytes(message: OutgoingMessage): number {
  return Buffer.byteLength(JSON.stringify({ msg_type: message.msgType, content: message.content, uuid: '00000000-0000-0000-0000-000000000000' }));
}

function render(markdown: string, msgType: 'post' | 'interactive', limit: number): OutgoingMessage[] {
  return splitMarkdown(markdown, limit).flatMap((chunk) => {
    const post = msgType === 'post' ? markdownToPost(chunk) : undefined;
    // e.g. a chunk that was only a link reference definition: nothing to show
    if (post !== undefined && post.zh_cn.content.length === 0) return [];
    const message: OutgoingMessage = { msgType, content: JSON.stringify(post ?? markdownToCard(chunk)) };
    if (bodyBytes(message) <= MAX_BODY_BYTES || limit <= MIN_CHUNK_CHARACTERS) return [message];
    return render(chunk, msgType, Math.floor(limit / 2));
  });
}
