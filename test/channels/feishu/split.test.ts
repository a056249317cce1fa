import { describe, expect, it } from 'vitest';
import { bodyBytes, MAX_BODY_BYTES, renderAnswer } from '../../../channels/feishu/format.js';
import { FEISHU_TEXT_LIMIT, splitMarkdown, splitPlainText } from '../../../channels/feishu/split.js';
import { visibleText } from './channel-fixture.js';

const squeeze = (text: string): string => text.replace(/\s+/g, '');
const withoutFences = (text: string): string => text.replace(/^ {0,3}```[^\n]*$/gm, '');

function longAnswer(parts = 20): string {
  return Array.from({ length: parts }, (_, index) =>
    [
      `### Part ${index}`,
      `Some **important** text about part ${index}, with a [link](https://example.com/${index}) and \`inline <code>\`. `.repeat(4),
      '```js\n' + Array.from({ length: 12 }, (_, line) => `console.log(${index}, ${line}, a < b && c > d);`).join('\n') + '\n```',
    ].join('\n\n'),
  ).join('\n\n');
}

/** Every chunk has its code fences paired, and each code part still opens with its language. */
function expectFencesIntact(chunks: string[]): void {
  for (const chunk of chunks) {
    const fences = chunk.match(/^```.*$/gm) ?? [];
    expect(fences.length % 2, chunk.slice(0, 80)).toBe(0);
    fences.forEach((fence, index) => expect(fence).toBe(index % 2 === 0 ? '```js' : '```'));
  }
}

describe('feishu markdown split', () => {
  it('keeps a short answer whole', () => {
    expect(splitMarkdown('  \n\nhello\n\n')).toEqual(['hello']);
    expect(splitMarkdown(' \n ')).toEqual([]);
  });

  it('splits a long answer between blocks, under the limit, nothing lost, code blocks intact', () => {
    const markdown = longAnswer();
    expect(markdown.length).toBeGreaterThan(3 * FEISHU_TEXT_LIMIT);
    const chunks = splitMarkdown(markdown);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(FEISHU_TEXT_LIMIT);
    expectFencesIntact(chunks);
    expect(squeeze(chunks.join('\n'))).toBe(squeeze(markdown));
  });

  it('cuts one huge code block between lines and re-fences every part with its language', () => {
    const code = Array.from({ length: 600 }, (_, line) => `let value${line} = compute(${line}); // ${'x'.repeat(20)}`).join('\n');
    const markdown = `Here:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
    const chunks = splitMarkdown(markdown);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(FEISHU_TEXT_LIMIT);
    expectFencesIntact(chunks);
    expect(squeeze(withoutFences(chunks.join('\n')))).toBe(squeeze(withoutFences(markdown)));
    expect(chunks.at(-1)).toMatch(/Done\.$/);
  });

  it('cuts a huge table between rows and repeats the header', () => {
    const rows = Array.from({ length: 300 }, (_, row) => `| ${row} | ${'cell '.repeat(5)} |`).join('\n');
    const chunks = splitMarkdown(`| n | text |\n|---|---|\n${rows}`);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.startsWith('| n | text |\n|---|---|\n')).toBe(true);
    expect(chunks.join('\n').match(/^\| \d+ \|/gm)).toHaveLength(300);
  });

  it('cuts a giant paragraph at spaces, and a word longer than the limit anywhere', () => {
    const words = 'word '.repeat(2000);
    expect(squeeze(splitMarkdown(words, 1000).join(''))).toBe(squeeze(words));
    const blob = 'x'.repeat(2500);
    expect(splitMarkdown(blob, 1000).map((chunk) => chunk.length)).toEqual([1000, 1000, 500]);
  });

  it('never cuts a surrogate pair', () => {
    const emoji = '😀'.repeat(600);
    const chunks = splitMarkdown(emoji, 501);
    expect(chunks.join('')).toBe(emoji);
    for (const chunk of chunks) expect(chunk).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it('splits notices at spaces without losing a character', () => {
    const notice = 'a&b '.repeat(3000);
    const parts = splitPlainText(notice);
    expect(parts.length).toBe(3);
    expect(parts.join('')).toBe(notice);
  });
});

describe('feishu rendered messages', () => {
  it('renders a long answer with code as cards, each body under 30 KB, all text kept', () => {
    const markdown = longAnswer();
    const messages = renderAnswer(markdown);
    expect(messages.length).toBeGreaterThan(3);
    for (const message of messages) {
      expect(message.msgType).toBe('interactive');
      expect(bodyBytes(message)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    }
    const shown = messages.map((message) => visibleText(message.msgType, JSON.parse(message.content))).join('\n');
    expect(squeeze(shown.replaceAll('&#60;', '<'))).toBe(squeeze(markdown));
  });

  it('renders a long plain answer as posts whose visible text is the answer', () => {
    const markdown = Array.from({ length: 60 }, (_, index) => `Paragraph ${index} says something **useful** about [item ${index}](https://example.com/${index}).`.repeat(3)).join('\n\n');
    const messages = renderAnswer(markdown);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(message.msgType).toBe('post');
    const shown = messages.map((message) => visibleText(message.msgType, JSON.parse(message.content))).join('\n');
    expect(squeeze(shown)).toBe(squeeze(markdown.replace(/\*\*/g, '').replace(/\[(item \d+)\]\([^)]+\)/g, '$1')));
  });

  it('keeps bodies under 30 KB when the characters are costly (CJK, quotes, many links)', () => {
    const cjk = '飞书消息“引号”与\\反斜杠。'.repeat(1500);
    const links = Array.from({ length: 900 }, (_, index) => `[${index}](https://example.com/a/very/long/path/${index})`).join(' ');
    for (const markdown of [cjk, links]) {
      const messages = renderAnswer(markdown);
      for (const message of messages) expect(bodyBytes(message)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    }
  });
});
