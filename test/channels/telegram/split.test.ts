import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../../channels/telegram/format.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from '../../../channels/telegram/split.js';
import { parseTelegramHtml } from '../../doubles/telegram-double.js';

/** The visible text of a chunk, asserting that Telegram would parse it. */
function visible(html: string): string {
  const parsed = parseTelegramHtml(html);
  if ('error' in parsed) throw new Error(`${parsed.error} in ${html.slice(0, 200)}`);
  return parsed.text;
}

function splitChecked(html: string, limit = TELEGRAM_MESSAGE_LIMIT): string[] {
  const chunks = splitTelegramHtml(html, { limit });
  for (const chunk of chunks) {
    expect(chunk.length).toBeLessThanOrEqual(limit);
    expect(chunk).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(chunk).not.toMatch(/<(\w+)[^>]*><\/\1>/);
    expect(chunk).not.toMatch(/&[#a-z0-9]*$|<[^>]*$/i);
  }
  expect(chunks.map(visible).join('')).toBe(visible(html));
  return chunks;
}

const paragraph = (index: number, length: number): string => `P${index} ` + 'word '.repeat(Math.ceil(length / 5)).slice(0, length - 3 - String(index).length) + '.';

describe('splitTelegramHtml', () => {
  it('leaves a message under the limit alone', () => {
    expect(splitTelegramHtml('<b>short</b>')).toEqual(['<b>short</b>']);
    expect(splitTelegramHtml('')).toEqual([]);
  });

  it('cuts at paragraph boundaries first', () => {
    const html = Array.from({ length: 10 }, (_, index) => paragraph(index, 1000)).join('\n\n');
    const chunks = splitChecked(html);
    expect(chunks.length).toBe(3);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith('.\n\n')).toBe(true);
    expect(chunks[1]?.startsWith('P4 ')).toBe(true);
  });

  it('keeps a code block that fits the next message whole', () => {
    const code = Array.from({ length: 100 }, (_, line) => `line ${line} <tag> && more`).join('\n');
    const html = `${paragraph(1, 2500)}\n\n<pre><code class="language-ts">${code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code></pre>`;
    const chunks = splitChecked(html);
    expect(chunks).toHaveLength(2);
    expect(chunks[1]?.startsWith('<pre><code class="language-ts">line 0')).toBe(true);
  });

  it('splits a long code block at lines, closing and reopening <pre><code>', () => {
    const code = Array.from({ length: 600 }, (_, line) => `const value${line} = ${line} &lt; limit;`).join('\n');
    const html = `<pre><code class="language-ts">${code}</code></pre>`;
    const chunks = splitChecked(html);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.startsWith('<pre><code class="language-ts">')).toBe(true);
      expect(chunk.endsWith('</code></pre>')).toBe(true);
    }
    for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith('\n</code></pre>')).toBe(true);
  });

  it('hard-cuts a very long line without spaces', () => {
    const chunks = splitChecked('x'.repeat(10_000));
    expect(chunks.map((chunk) => chunk.length)).toEqual([4096, 4096, 1808]);
  });

  it('cuts a long line of prose at spaces', () => {
    const chunks = splitChecked('lorem ipsum '.repeat(1000).trim());
    for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith(' ')).toBe(true);
  });

  it('never splits a surrogate pair or an entity', () => {
    splitChecked('😀'.repeat(5000));
    splitChecked('a' + '😀'.repeat(5000));
    splitChecked('&amp;&lt;&gt;&quot;'.repeat(600));
    splitChecked('z' + '&amp;'.repeat(3000));
  });

  it('closes and reopens tags that span a cut', () => {
    const html = `<b>bold:<i>${'ab'.repeat(3000)}</i>tail</b> after`;
    const chunks = splitChecked(html);
    expect(chunks[0]?.startsWith('<b>bold:<i>')).toBe(true);
    expect(chunks[0]?.endsWith('</i></b>')).toBe(true);
    expect(chunks[1]?.startsWith('<b><i>')).toBe(true);
    const link = `<a href="https://example.com/?a=1&amp;b=2">${'link text '.repeat(600)}</a>`;
    for (const chunk of splitChecked(link)) expect(chunk).toMatch(/^<a href="https:\/\/example\.com\/\?a=1&amp;b=2">.*<\/a>$/s);
  });

  it('splits a 10,000-character formatted answer into valid messages', () => {
    const sections = Array.from({ length: 10 }, (_, index) =>
      [
        `## Section ${index} with **bold** and [a link](https://example.com/${index}?q=1&r=2)`,
        paragraph(index, 400),
        '- item one with `code <x>`\n- item two 😀 émoji\n  - nested item',
        '```python\n' + Array.from({ length: 12 }, (_, line) => `print("${index}:${line}", a < b & c)`).join('\n') + '\n```',
        '> a quote with *italic* text',
      ].join('\n\n'),
    );
    const html = markdownToTelegramHtml(sections.join('\n\n'));
    expect(html.length).toBeGreaterThan(10_000);
    const chunks = splitChecked(html);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      // every code block is whole: as many openings as closings, each <pre> directly followed by <code>
      expect(chunk.split('<pre>').length).toBe(chunk.split('</pre>').length);
      expect(chunk).not.toMatch(/<pre>(?!<code)/);
    }
  });

  it('can count only the visible text (for plain-text messages)', () => {
    const chunks = splitTelegramHtml('&lt;&gt;'.repeat(3000), { measure: 'text' });
    expect(chunks.map((chunk) => visible(chunk).length)).toEqual([4096, 1904]);
  });

  it('always makes progress, even with a tiny limit', () => {
    const chunks = splitChecked('<b>abc</b> <i>def</i>', 12);
    expect(chunks.length).toBeGreaterThan(1);
  });
});
