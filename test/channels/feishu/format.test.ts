import { describe, expect, it } from 'vitest';
import { markdownToCard } from '../../../channels/feishu/card-format.js';
import { needsCard, renderAnswer, renderText } from '../../../channels/feishu/format.js';
import { markdownToPost } from '../../../channels/feishu/post-format.js';

const lines = (markdown: string) => markdownToPost(markdown).zh_cn.content;

describe('feishu post or card', () => {
  it.each([
    ['plain prose', 'Hello **there**, see [docs](https://example.com).', false],
    ['inline code only', 'Run `npm test` first.', false],
    ['a list', '- one\n- two', false],
    ['a fenced code block', 'Try:\n\n```ts\nconst a = 1;\n```', true],
    ['an indented code block', 'Try:\n\n    const a = 1;', true],
    ['a table', '| a | b |\n|---|---|\n| 1 | 2 |', true],
    ['code inside a list item', '- step:\n\n  ```sh\n  ls\n  ```', true],
    ['code inside a quote', '> ```\n> x\n> ```', true],
  ])('%s → card: %s', (_name, markdown, card) => {
    expect(needsCard(markdown)).toBe(card);
    const [message] = renderAnswer(markdown);
    expect(message?.msgType).toBe(card ? 'interactive' : 'post');
  });
});

describe('feishu post rendering', () => {
  it('styles bold, italic and strikethrough, links as a elements', () => {
    expect(lines('Say **bold _both_** and ~~gone~~ or [docs](https://example.com/x?a=1&b=2)!')).toEqual([
      [
        { tag: 'text', text: 'Say ' },
        { tag: 'text', text: 'bold ', style: ['bold'] },
        { tag: 'text', text: 'both', style: ['bold', 'italic'] },
        { tag: 'text', text: ' and ' },
        { tag: 'text', text: 'gone', style: ['lineThrough'] },
        { tag: 'text', text: ' or ' },
        { tag: 'a', text: 'docs', href: 'https://example.com/x?a=1&b=2' },
        { tag: 'text', text: '!' },
      ],
    ]);
  });

  it('separates blocks with a blank line and renders headings bold, lists with markers, quotes and rules', () => {
    expect(lines('# Title\n\nPara one\nline two\n\n1. first\n2. second\n   - nested\n\n> quoted\n\n---')).toEqual([
      [{ tag: 'text', text: 'Title', style: ['bold'] }],
      [{ tag: 'text', text: '' }],
      [{ tag: 'text', text: 'Para one' }],
      [{ tag: 'text', text: 'line two' }],
      [{ tag: 'text', text: '' }],
      [{ tag: 'text', text: '1. ' }, { tag: 'text', text: 'first' }],
      [{ tag: 'text', text: '2. ' }, { tag: 'text', text: 'second' }],
      [{ tag: 'text', text: '    • ' }, { tag: 'text', text: 'nested' }],
      [{ tag: 'text', text: '' }],
      [{ tag: 'text', text: '> ' }, { tag: 'text', text: 'quoted' }],
      [{ tag: 'text', text: '' }],
      [{ tag: 'hr' }],
    ]);
  });

  it('keeps inline code with its backticks, decodes entities, and shows non-web links with their address', () => {
    expect(lines('Use `a < b` &amp; [file](file:///etc/hosts)')).toEqual([[{ tag: 'text', text: 'Use `a < b` & file (file:///etc/hosts)' }]]);
  });

  it('renders a code block as code_block when a post must carry one', () => {
    expect(lines('```python\nprint(1)\n```')).toEqual([[{ tag: 'code_block', language: 'PYTHON', text: 'print(1)' }]]);
  });
});

describe('feishu card rendering', () => {
  it('puts the Markdown in a JSON 2.0 card that can be patched', () => {
    expect(markdownToCard('**Hi**\n\n```js\nx()\n```')).toEqual({
      schema: '2.0',
      config: { update_multi: true, width_mode: 'fill' },
      body: { elements: [{ tag: 'markdown', content: '**Hi**\n\n```js\nx()\n```' }] },
    });
  });

  it('escapes < outside code so the model cannot open card tags, and leaves code untouched', () => {
    const card = markdownToCard('if a <b> c, `x<y`\n\n```html\n<div>\n```\n\n- item <at id=all></at>\n\n  ```\n  <p>\n  ```');
    expect(card.body.elements[0]?.content).toBe('if a &#60;b> c, `x<y`\n\n```html\n<div>\n```\n\n- item &#60;at id=all>&#60;/at>\n\n  ```\n  <p>\n  ```');
  });

  it('spreads more than four tables over several markdown elements', () => {
    const table = (n: number) => `| t${n} | v |\n|---|---|\n| ${n} | x |`;
    const card = markdownToCard(Array.from({ length: 6 }, (_, index) => table(index)).join('\n\n'));
    expect(card.body.elements).toHaveLength(2);
    expect(card.body.elements[0]?.content.match(/\| t\d/g)).toHaveLength(4);
    expect(card.body.elements[1]?.content.match(/\| t\d/g)).toHaveLength(2);
  });
});

describe('feishu notices', () => {
  it('are text messages, unformatted', () => {
    expect(renderText('Stopped. **not bold** <b>')).toEqual([{ msgType: 'text', content: JSON.stringify({ text: 'Stopped. **not bold** <b>' }) }]);
  });
});
