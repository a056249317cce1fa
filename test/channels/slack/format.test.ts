import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../channels/slack/format.js';

describe('markdown to slack mrkdwn', () => {
  it.each([
    ['**bold** and __bold__', '*bold* and *bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['~~gone~~', '~gone~'],
    ['***both***', '_*both*_'],
    ['**bold with *italic* inside**', '*bold with _italic_ inside*'],
    ['`a < b && c`', '`a &lt; b &amp;&amp; c`'],
    ['AT&T <b>x</b> 5 > 3', 'AT&amp;T &lt;b&gt;x&lt;/b&gt; 5 &gt; 3'],
    ['already &amp; escaped &lt;tag&gt;', 'already &amp; escaped &lt;tag&gt;'],
    ['[docs](https://example.com/a?x=1&y=2)', '<https://example.com/a?x=1&amp;y=2|docs>'],
    ['[**bold** label](https://example.com)', '<https://example.com|bold label>'],
    ['[pipe](https://example.com/a|b)', '<https://example.com/a%7Cb|pipe>'],
    ['https://example.com/bare', '<https://example.com/bare>'],
    ['<https://example.com/auto>', '<https://example.com/auto>'],
    ['write to a@example.com', 'write to <mailto:a@example.com|a@example.com>'],
    ['[run](javascript:alert(1))', 'run (javascript:alert(1))'],
    ['![diagram](https://example.com/d.png)', '<https://example.com/d.png|diagram>'],
    ['ask <@U0BOB0001> or <!here>, not <@nobody>', 'ask <@U0BOB0001> or <!here>, not &lt;@nobody&gt;'],
    ['# Title with **bold**', '*Title with bold*'],
    ['### Small heading', '*Small heading*'],
    ['> quoted **text**\n> second line', '> quoted *text*\n> second line'],
    ['> outer\n> > inner', '> outer\n> inner'],
    ['- one\n- two\n  - nested', '• one\n• two\n    ◦ nested'],
    ['3. three\n4. four', '3. three\n4. four'],
    ['- [x] done\n- [ ] todo', '• ☑ done\n• ☐ todo'],
    ['a\n\n---\n\nb', 'a\n\n──────────\n\nb'],
    ['line one  \nline two', 'line one\nline two'],
  ])('%j → %j', (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('renders fenced code without the language, escaped, and nothing formatted inside', () => {
    const markdown = 'Run:\n\n```ts\nif (a < b && c > d) { return **x**; }\n```\n\nDone.';
    expect(markdownToMrkdwn(markdown)).toBe('Run:\n\n```\nif (a &lt; b &amp;&amp; c &gt; d) { return **x**; }\n```\n\nDone.');
  });

  it('renders a table as a monospaced block', () => {
    expect(markdownToMrkdwn('| name | n |\n|---|--:|\n| a & b | 22 |')).toBe('```\nname  |  n\n------|---\na &amp; b | 22\n```');
  });

  it('keeps an unclosed code fence (a streaming answer) well-formed', () => {
    expect(markdownToMrkdwn('Here:\n\n```js\nconst a = 1;')).toBe('Here:\n\n```\nconst a = 1;\n```');
  });

  it('turns raw HTML into visible text', () => {
    expect(markdownToMrkdwn('<div>block</div>')).toBe('&lt;div&gt;block&lt;/div&gt;');
  });
});
