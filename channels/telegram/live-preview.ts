import { markdownToTelegramHtml } from './format.js';
import { htmlToPlainText } from './html-text.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from './split.js';

/** Marks a preview cut at one message while the answer goes on. */
const CUT_MARK = '\n…';

/** What the preview message shows: Telegram HTML, or plain text once Telegram refused our HTML. */
export interface Preview {
  text: string;
  html: boolean;
}

/**
 * The preview text of a live reply: the answer so far rendered by the same renderer as the final answer
 * (so it always parses and the final edit changes little), as plain text once Telegram refused a preview's
 * HTML. The last rendering is kept: the loop asks again for the same text before and after each call.
 */
export function createPreviewText() {
  let plain = false;
  let rendered: { source: string; plain: boolean; preview: Preview | undefined } | undefined;
  return {
    of(markdown: string): Preview | undefined {
      if (rendered === undefined || rendered.source !== markdown || rendered.plain !== plain) {
        rendered = { source: markdown, plain, preview: previewOf(markdown, plain) };
      }
      return rendered.preview;
    },
    /** Telegram refused a preview's HTML: later previews go as plain text. */
    goPlain(): void {
      plain = true;
    },
  };
}

export function samePreview(shown: Preview, wanted: Preview): boolean {
  return shown.text === wanted.text && shown.html === wanted.html;
}

/** The preview of a partial answer: its HTML if it fits one message, else its first message and a cut mark. */
export function previewOf(markdown: string, plain = false): Preview | undefined {
  const html = markdownToTelegramHtml(markdown);
  const [head, ...more] = splitTelegramHtml(html, { limit: TELEGRAM_MESSAGE_LIMIT - CUT_MARK.length }).filter((chunk) => htmlToPlainText(chunk).trim() !== '');
  if (head === undefined) return undefined;
  const text = more.length === 0 ? head : head + CUT_MARK;
  // plain text is never longer than the HTML it comes from
  return plain ? { text: htmlToPlainText(text), html: false } : { text, html: true };
}
