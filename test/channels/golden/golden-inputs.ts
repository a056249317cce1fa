/**
 * The Markdown every channel renders for the golden fixtures: what models write, plus the cases a renderer
 * or a splitter gets wrong first (CJK, emoji with ZWJ and surrogate pairs near a cut, unbalanced markup).
 */
const words = (count: number, word = 'word'): string => Array.from({ length: count }, (_, index) => `${word}${index % 10}`).join(' ');

const longParagraphs = Array.from({ length: 14 }, (_, index) => `Paragraph ${index}: ${words(60)}.`).join('\n\n');
const longCode = ['```ts', ...Array.from({ length: 150 }, (_, index) => `const value${index} = compute(${index}, "<tag>" && 'x');`), '```'].join('\n');
const cjk = '中文段落，包含标点符号。'.repeat(30) + '\n\n' + '日本語の文章です、句読点もあります。'.repeat(30) + '\n\n' + '한국어 문장입니다. '.repeat(40);
const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
const flag = '\u{1F1EF}\u{1F1F5}';
const emojiRun = `${family}${flag}\u{1F600}\u{1F44D}\u{1F3FD}`.repeat(60);

export const GOLDEN_INPUTS: Record<string, string> = {
  empty: '',
  whitespace: '   \n\n  ',
  plain: 'Hello there, this is a plain answer.',
  headings: '# Title\n\n## Second *level*\n\n### Third with `code`\n\nBody text.',
  inline: 'Some **bold**, *italic*, ***both***, ~~strike~~, `code <b> & span`, and **bold with *nested italic* inside**.',
  escapes: 'Symbols: 1 < 2 > 0 & a\\*b\\* &amp; &lt;tag&gt; &#39;quoted&#39; &#x1F600; &bogus; <@U123ABC> <!here>',
  links: 'See [the docs](https://example.com/docs?a=1&b=2), <https://auto.example.com>, [mail](mailto:a@b.c), [bad](javascript:alert(1)), [**bold link** with `code`](https://x.y/z|w), and ![an image](https://img.example.com/a.png).',
  rawHtml: 'Inline <u>underlined</u> and <b>bold</b> and <span>unknown</span> and line<br>break and <u>lone half.\n\n<div>block html</div>',
  fencedCode: 'Before\n\n```python\ndef f(x):\n    return x < 3 and "<ok>"\n```\n\nAfter\n\n```\nno language\n```\n\n~~~js extra words\ntilde fence\n~~~',
  indentedCode: 'Paragraph\n\n    indented code\n    second line\n\nEnd.',
  lists: '- one\n- two with **bold**\n  - nested a\n  - nested b\n    1. deep ordered\n    2. deep second\n- three\n\n3. starts at three\n4. four\n\n- [ ] open task\n- [x] done task\n- [ ] task with `code`',
  looseList: '- first item\n\n  with a second paragraph\n\n- second item\n\n  ```sh\n  echo inside list\n  ```',
  table: '| Name | Value | Note |\n|:-----|------:|:----:|\n| alpha | 1 | **bold** |\n| beta `b` | 22 | [link](https://e.com) |\n| 中文 | 333 | \u{1F600} |',
  blockquote: '> quoted line one\n> quoted **bold**\n>\n> > nested quote\n\nAfter the quote.',
  hr: 'Above\n\n---\n\nBelow',
  mixed: '# Report\n\nIntro with [a link](https://example.com).\n\n- item\n- item with `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconsole.log(1);\n```\n\n> done',
  unbalanced: 'Unclosed **bold and *italic and `code and [link](http://x\n\n```js\nunclosed fence\nconst a = 1;',
  unbalancedStars: '**a * b** c __d _e ~~f',
  cjk,
  emojiRun,
  emojiNearCut: 'x'.repeat(3997) + family + ' tail ' + 'y'.repeat(50),
  emojiNearTelegramCut: 'x'.repeat(4090) + family + flag + ' tail',
  surrogateAtCut: 'a'.repeat(3999) + '\u{1F600}\u{1F601}' + 'b'.repeat(20),
  longParagraphs,
  longCode,
  longLine: words(1200),
  longUnbroken: 'z'.repeat(9000),
  longLinks: Array.from({ length: 120 }, (_, index) => `[link number ${index}](https://example.com/path/${index}?q=${'p'.repeat(20)})`).join(' '),
  longTable: '| id | name |\n|---|---|\n' + Array.from({ length: 300 }, (_, index) => `| ${index} | ${words(3)} |`).join('\n'),
  crlf: 'Line one\r\nLine two\r\n\r\nNew paragraph\rold mac',
  silentish: 'NO_REPLY',
};

/** A small limit makes every splitter cut the inputs above many times. */
export const SMALL_LIMIT = 120;
