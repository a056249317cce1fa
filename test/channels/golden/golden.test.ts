import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../../channels/telegram/format.js';
import { escapeHtml, htmlToPlainText } from '../../../channels/telegram/html-text.js';
import { previewOf as telegramPreview } from '../../../channels/telegram/live-preview.js';
import { renderAnswerChunks } from '../../../channels/telegram/outbound.js';
import { splitTelegramHtml } from '../../../channels/telegram/split.js';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import { previewOf as slackPreview } from '../../../channels/slack/live-reply.js';
import { escapeMrkdwn } from '../../../channels/slack/mrkdwn-text.js';
import { splitMrkdwn } from '../../../channels/slack/split.js';
import { previewCard, renderAnswer, renderCards } from '../../../channels/feishu/format.js';
import { markdownToPost } from '../../../channels/feishu/post-format.js';
import { splitMarkdown, splitPlainText } from '../../../channels/feishu/split.js';
import { GOLDEN_INPUTS, SMALL_LIMIT } from './golden-inputs.js';

/**
 * What each channel makes of the same Markdown, through its public formatting and splitting functions,
 * compared with the files committed next to this test. `UPDATE_GOLDEN=1` rewrites them (review the diff:
 * every change there is a change a user sees).
 */
const RENDERERS: Record<string, (markdown: string) => Record<string, unknown>> = {
  telegram: (markdown) => {
    const html = markdownToTelegramHtml(markdown);
    return {
      html,
      chunks: renderAnswerChunks(markdown),
      smallChunks: splitTelegramHtml(html, { limit: SMALL_LIMIT }),
      smallNotice: splitTelegramHtml(escapeHtml(markdown), { measure: 'text', limit: SMALL_LIMIT }).map((chunk) => htmlToPlainText(chunk)),
      preview: telegramPreview(markdown) ?? null,
      plainPreview: telegramPreview(markdown, true) ?? null,
    };
  },
  slack: (markdown) => {
    const mrkdwn = markdownToMrkdwn(markdown);
    return {
      mrkdwn,
      chunks: splitMrkdwn(mrkdwn),
      smallChunks: splitMrkdwn(mrkdwn, { limit: SMALL_LIMIT }),
      smallNotice: splitMrkdwn(escapeMrkdwn(markdown), { codeFences: false, limit: SMALL_LIMIT }),
      preview: slackPreview(markdown),
    };
  },
  feishu: (markdown) => ({
    post: markdownToPost(markdown),
    answer: renderAnswer(markdown),
    cards: renderCards(markdown),
    preview: previewCard(markdown) ?? null,
    chunks: splitMarkdown(markdown),
    smallChunks: splitMarkdown(markdown, SMALL_LIMIT),
    smallPlain: splitPlainText(markdown, SMALL_LIMIT),
  }),
};

const update = process.env.UPDATE_GOLDEN === '1';

for (const [platform, render] of Object.entries(RENDERERS)) {
  const file = new URL(`./expected/${platform}.json`, import.meta.url);
  const actual = Object.fromEntries(Object.entries(GOLDEN_INPUTS).map(([name, markdown]) => [name, render(markdown)]));
  if (update) writeFileSync(file, JSON.stringify(actual, null, 1) + '\n');
  const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

  describe(`${platform} golden rendering`, () => {
    it('covers every input', () => {
      expect(Object.keys(expected).sort()).toEqual(Object.keys(GOLDEN_INPUTS).sort());
    });
    for (const name of Object.keys(GOLDEN_INPUTS)) {
      it(`renders and splits "${name}" as before`, () => {
        expect(actual[name]).toStrictEqual(expected[name]);
      });
    }
  });
}
