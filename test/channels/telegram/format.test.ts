import { describe, expect, it } from 'vitest';
import { isPlainProse, markdownToTelegramHtml, markdownToTelegramHtml as format, renderMarkdown } from '../../../channels/telegram/format.js';
import { parseTelegramHtml } from '../../doubles/telegram-double.js';

/** Everything the renderer emits must be accepted by Telegram's HTML parser (the double's strict one). */
function formatValid(markdown: string): string {
  const html = format(markdown);
  expect(parseTelegramHtml(html)).not.toHaveProperty('error');
  return html;
}

describe('markdownToTelegramHtml', () => {
  it('renders inline styles', () => {
    expect(formatValid('**bold** *it* _it2_ ~~gone~~ `x`')).toBe('<b>bold</b> <i>it</i> <i>it2</i> <s>gone</s> <code>x</code>');
  });

  it('nests styles', () => {
    expect(formatValid('**bold _and italic_ and ~~struck~~**')).toBe('<b>bold <i>and italic</i> and <s>struck</s></b>');
    expect(formatValid('***both***')).toBe('<i><b>both</b></i>');
  });

  it('escapes <, > and & in text and code', () => {
    expect(formatValid('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    expect(formatValid('`if (a<b && c>d)`')).toBe('<code>if (a&lt;b &amp;&amp; c&gt;d)</code>');
    expect(formatValid('```\n<div class="x">&amp;</div>\n```')).toBe('<pre>&lt;div class="x"&gt;&amp;amp;&lt;/div&gt;</pre>');
  });

  it('renders fenced code with its language', () => {
    expect(formatValid('```ts\nconst a = 1 < 2;\n```')).toBe('<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>');
    expect(formatValid('    indented code')).toBe('<pre>indented code</pre>');
  });

  it('keeps an unclosed fence as a code block to the end', () => {
    expect(formatValid('text\n\n```python\nprint(1)')).toBe('text\n\n<pre><code class="language-python">print(1)</code></pre>');
  });

  it('renders links, escaping the address (quotes too)', () => {
    expect(formatValid('[site](https://example.com/?a=1&b="2")')).toBe('<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">site</a>');
    expect(formatValid('see https://example.com')).toBe('see <a href="https://example.com">https://example.com</a>');
    expect(formatValid('[**bold `code` link**](https://x.io)')).toBe('<a href="https://x.io"><b>bold code link</b></a>');
  });

  it('renders links with schemes Telegram refuses as their text', () => {
    expect(formatValid('[run](javascript:alert(1)) and [rel](/path)')).toBe('run and rel');
  });

  it('renders headings as bold lines and hr as a line', () => {
    expect(formatValid('# Title\n\ntext\n\n---\n\n## Sub *it*')).toBe('<b>Title</b>\n\ntext\n\n──────────\n\n<b>Sub <i>it</i></b>');
  });

  it('renders lists as bullet and numbered lines, nested and with tasks', () => {
    expect(formatValid('- one\n- **two**\n  - nested\n\n3. c\n4. d\n\n- [x] done\n- [ ] todo')).toBe(
      '• one\n• <b>two</b>\n  • nested\n\n3. c\n4. d\n\n• ☑ done\n• ☐ todo',
    );
  });

  it('renders blockquotes, flattening nested ones', () => {
    expect(formatValid('> quoted **bold**\n> more')).toBe('<blockquote>quoted <b>bold</b>\nmore</blockquote>');
    expect(formatValid('> outer\n>> inner')).toBe('<blockquote>outer\ninner</blockquote>');
  });

  it('renders tables as a padded preformatted block', () => {
    expect(formatValid('| name | qty |\n|---|--:|\n| apple <3 | 10 |\n| kiwi | 2 |')).toBe(
      '<pre>name     | qty\n---------|----\napple &lt;3 |  10\nkiwi     |   2</pre>',
    );
  });

  it('shows unsupported HTML as text, but keeps Telegram-known inline pairs', () => {
    expect(formatValid('<div>block</div>')).toBe('&lt;div&gt;block&lt;/div&gt;');
    expect(formatValid('an <u>underlined</u> word<br>next <span>x</span>')).toBe('an <u>underlined</u> word\nnext &lt;span&gt;x&lt;/span&gt;');
    expect(formatValid('lone <b> tag')).toBe('lone &lt;b&gt; tag');
  });

  it('decodes only the entities Telegram knows, showing others literally', () => {
    expect(formatValid('fish &amp; chips &copy; &#65;')).toBe('fish &amp; chips &amp;copy; A');
  });

  it('leaves unclosed markdown as text', () => {
    expect(formatValid('***unclosed and **half')).toBe('***unclosed and **half');
    expect(formatValid('a `tick without end')).toBe('a `tick without end');
    expect(formatValid('[text](http://unclosed')).toBe('[text](<a href="http://unclosed">http://unclosed</a>');
  });

  it('keeps Unicode and emoji untouched', () => {
    expect(formatValid('**Привет** 世界 👨‍👩‍👧 `ü`')).toBe('<b>Привет</b> 世界 👨‍👩‍👧 <code>ü</code>');
  });

  it('keeps backslash escapes literal and line breaks as newlines', () => {
    expect(formatValid('\\*not italic\\* line\nnext  \nhard')).toBe('*not italic* line\nnext\nhard');
  });

  it('renders an empty or blank answer as empty', () => {
    expect(format('')).toBe('');
    expect(format('  \n\n ')).toBe('');
  });
});

describe('the plain-prose fast path', () => {
  it('renders exactly as marked would, for every one-line text it takes', () => {
    const pieces = ['Answer', 'to', 'm123k', 'héllo', 'naïve', '数据', 'Привет', '42', '3.5', ',', '.', ';', '?', "'", '"', '%', '/', ' ', '  ', 'www', 'example', 'com', 'x'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    let taken = 0;
    for (let sample = 0; sample < 3_000; sample++) {
      const length = 1 + (next() % 12);
      const text = Array.from({ length }, () => pieces[next() % pieces.length]).join(next() % 2 ? ' ' : '');
      if (!isPlainProse(text)) continue;
      taken += 1;
      expect(markdownToTelegramHtml(text), text).toBe(renderMarkdown(text));
    }
    expect(taken).toBeGreaterThan(500);
  });

  it('leaves to marked what Markdown could read: lists, emphasis, links, entities, autolinks, several lines', () => {
    for (const text of ['1. first', '- item', '# Title', 'a *b* c', 'a_b_c', 'see [x](y)', 'AT&T', 'a <b> c', 'go to www.example.com', 'mail me at a@b.co', 'one\ntwo', 'x: y', 'wow!', '`code`']) {
      expect(isPlainProse(text), text).toBe(false);
    }
    expect(isPlainProse('Answer to m12k.')).toBe(true);
    expect(markdownToTelegramHtml('  Answer to m12k.  ')).toBe('Answer to m12k.');
  });
});
