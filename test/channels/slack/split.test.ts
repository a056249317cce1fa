import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';
import { SLACK_MESSAGE_LIMIT, splitMrkdwn } from '../../../channels/slack/split.js';

/** Chunks joined again: a code block closed at a cut and reopened after it becomes one block, other cuts were paragraph breaks. */
function rejoin(chunks: string[]): string {
  return chunks.join('\u0000').replace(/\n```\u0000```\n/g, '\n').replace(/\u0000/g, '\n\n');
}

const squash = (text: string): string => text.replace(/\s+/g, '');

function longAnswer(): string {
  return Array.from({ length: 14 }, (_, index) =>
    [
      `### Part ${index}`,
      `Some **important** text about part ${index}, with a [link](https://example.com/${index}?a=1&b=2) and \`inline <code>\`. `.repeat(4),
      '```js\n' + Array.from({ length: 10 }, (_, line) => `console.log(${index}, ${line}, a < b && c > d);`).join('\n') + '\n```',
    ].join('\n\n'),
  ).join('\n\n');
}

describe('splitting mrkdwn', () => {
  it('leaves a short message alone and drops an empty one', () => {
    expect(splitMrkdwn('hello')).toEqual(['hello']);
    expect(splitMrkdwn('  \n ')).toEqual([]);
  });

  it('splits a 10,000-character answer into chunks of at most 4,000, nothing lost, code blocks balanced', () => {
    const mrkdwn = markdownToMrkdwn(longAnswer());
    expect(mrkdwn.length).toBeGreaterThan(10_000);
    const chunks = splitMrkdwn(mrkdwn);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(SLACK_MESSAGE_LIMIT);
      expect(chunk.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
      expect(chunk).not.toMatch(/<[^>]*$/);
      expect(chunk).not.toMatch(/&[a-z]*$/);
    }
    expect(squash(chunks.join(''))).toBe(squash(mrkdwn));
  });

  it('prefers paragraph breaks', () => {
    const first = 'a'.repeat(60);
    const second = 'b'.repeat(60);
    expect(splitMrkdwn(`${first}\n\n${second}`, { limit: 100 })).toEqual([first, second]);
  });

  it('falls back to line breaks, then spaces, then a hard cut', () => {
    expect(splitMrkdwn(`${'a'.repeat(60)}\n${'b'.repeat(60)}`, { limit: 100 })).toEqual(['a'.repeat(60), 'b'.repeat(60)]);
    expect(splitMrkdwn(`${'a'.repeat(60)} ${'b'.repeat(60)}`, { limit: 100 })).toEqual([`${'a'.repeat(60)} `, 'b'.repeat(60)]);
    const hard = splitMrkdwn('x'.repeat(250), { limit: 100 });
    expect(hard.every((chunk) => chunk.length <= 100)).toBe(true);
    expect(hard.join('')).toBe('x'.repeat(250));
  });

  it('closes a code block at a cut and reopens it in the next chunk', () => {
    const code = Array.from({ length: 30 }, (_, line) => `line ${line} of code`).join('\n');
    const mrkdwn = `Intro.\n\n\`\`\`\n${code}\n\`\`\`\n\nOutro.`;
    const chunks = splitMrkdwn(mrkdwn, { limit: 200 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(200);
      expect(chunk.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
    }
    expect(chunks[1]?.startsWith('```\nline')).toBe(true);
    expect(rejoin(chunks)).toBe(mrkdwn);
  });

  it('never cuts inside a link, a mention or an entity', () => {
    const link = '<https://example.com/a-rather-long-path|a label with spaces>';
    const text = `${'word '.repeat(15)}${link} &amp; <@U0BOB0001> ${'more '.repeat(10)}`;
    for (const limit of [80, 90, 100, 110]) {
      const chunks = splitMrkdwn(text, { limit });
      expect(chunks.join('')).toBe(text.trim());
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(limit);
        expect(chunk.split('<').length, chunk).toBe(chunk.split('>').length);
      }
    }
  });

  it('splits plain notices without touching backticks', () => {
    const notice = '```not code``` '.repeat(40);
    const chunks = splitMrkdwn(notice, { limit: 100, codeFences: false });
    expect(chunks.join('')).toBe(notice.trim());
  });

  it('never splits a surrogate pair', () => {
    const chunks = splitMrkdwn('😀'.repeat(120), { limit: 101 });
    expect(chunks.join('')).toBe('😀'.repeat(120));
    for (const chunk of chunks) expect(chunk).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });
});
