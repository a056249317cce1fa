import type { Token, Tokens } from 'marked';

export type InlineStyle = 'bold' | 'italic' | 'strike';
/** How the blocks of one level are set apart: a blank line (top level) or a line break (inside quotes and lists). */
export type BlockSeparation = 'paragraph' | 'line';

export interface ListItemShape {
  ordered: boolean;
  /** The item's number in an ordered list (the list's start counted on). */
  number: number;
  task: boolean;
  checked: boolean;
}

/**
 * What one platform makes of each kind of Markdown node: the leaves (text, code, links…) and how the pieces
 * are joined. The walker does the recursion and hands a renderer callbacks for the parts inside a node, so
 * the platform chooses the context they are rendered in (a style already open, inside a link, a list depth).
 * `Inline` and `Block` are the platform's output (a string for Telegram HTML and Slack mrkdwn, post elements
 * for Feishu); `C` is its context.
 */
export interface MarkdownRenderer<Inline, Block, C> {
  joinInline(parts: Inline[]): Inline;
  /** A run of text as the model wrote it (HTML entities still encoded). */
  text(text: string, context: C): Inline;
  /** A backslash-escaped character. */
  escape(text: string, context: C): Inline;
  style(style: InlineStyle, inner: (context: C) => Inline, context: C): Inline;
  codespan(code: string, context: C): Inline;
  lineBreak(context: C): Inline;
  link(link: Tokens.Link, label: (context: C) => Inline, context: C): Inline;
  image(image: Tokens.Image, context: C): Inline;
  inlineHtml(token: Tokens.Generic, context: C): Inline;
  otherInline(token: Tokens.Generic, context: C): Inline;
  /** Raw inline HTML the platform has a style for: an `<u>` … `</u>` pair among siblings (a lone half stays text). */
  htmlPairs?: {
    tagFor(name: string): string | undefined;
    render(tag: string, inner: Inline, context: C): Inline;
  };

  /** Empty parts are left out; `separation` says what goes between the others. */
  joinBlocks(parts: Block[], separation: BlockSeparation): Block;
  paragraph(inline: Inline, context: C): Block;
  heading(inner: (context: C) => Inline, context: C): Block;
  code(code: Tokens.Code, context: C): Block;
  /** `inner` renders the quote's blocks, one line apart. */
  blockquote(inner: (context: C) => Block, context: C): Block;
  /** The context a list's items (and the lists nested in them) are rendered in. */
  listItemContext(context: C): C;
  /** `body` is the item's own blocks, `nested` the lists inside it; `context` is the list's own. */
  listItem(item: ListItemShape, body: Block, nested: Block, context: C): Block;
  table(table: Tokens.Table, cell: (tokens: Token[], context: C) => Inline, context: C): Block;
  rule(context: C): Block;
  /** A task list's checkbox standing as a block of its own (tight lists); `listItem` already shows the box. */
  checkbox(token: Tokens.Generic, context: C): Block;
  blockHtml(token: Tokens.Generic, context: C): Block;
  otherBlock(token: Tokens.Generic, context: C): Block;
}

/** Walks marked's tokens with one platform's renderer. */
export function markdownWalker<Inline, Block, C>(renderer: MarkdownRenderer<Inline, Block, C>) {
  function blocks(tokens: Token[], context: C, separation: BlockSeparation): Block {
    const parts: Block[] = [];
    for (const token of tokens) if (token.type !== 'space' && token.type !== 'def') parts.push(block(token, context));
    return renderer.joinBlocks(parts, separation);
  }

  function block(token: Token, context: C): Block {
    const generic = token as Tokens.Generic;
    switch (generic.type) {
      case 'paragraph':
      case 'text':
        return renderer.paragraph(generic.tokens ? inline(generic.tokens, context) : renderer.text(String(generic.text), context), context);
      case 'heading':
        return renderer.heading((inner) => inline((token as Tokens.Heading).tokens, inner), context);
      case 'code':
        return renderer.code(token as Tokens.Code, context);
      case 'blockquote':
        return renderer.blockquote((inner) => blocks((token as Tokens.Blockquote).tokens, inner, 'line'), context);
      case 'list':
        return list(token as Tokens.List, context);
      case 'table':
        return renderer.table(token as Tokens.Table, inline, context);
      case 'hr':
        return renderer.rule(context);
      case 'checkbox':
        return renderer.checkbox(generic, context);
      case 'html':
        return renderer.blockHtml(generic, context);
      default:
        return renderer.otherBlock(generic, context);
    }
  }

  function list(token: Tokens.List, context: C): Block {
    const first = typeof token.start === 'number' ? token.start : 1;
    const itemContext = renderer.listItemContext(context);
    const items = token.items.map((item, index) => {
      const shape = { ordered: token.ordered, number: first + index, task: item.task, checked: item.checked === true };
      const body = blocks(item.tokens.filter((child) => child.type !== 'list'), itemContext, 'line');
      const nested = blocks(item.tokens.filter((child) => child.type === 'list'), itemContext, 'line');
      return renderer.listItem(shape, body, nested, context);
    });
    return renderer.joinBlocks(items, 'line');
  }

  function inline(tokens: Token[], context: C): Inline {
    const parts: Inline[] = [];
    for (let index = 0; index < tokens.length; index += 1) {
      const token = tokens[index] as Token;
      const pair = token.type === 'html' && renderer.htmlPairs ? matchingHtmlPair(tokens, index, renderer.htmlPairs.tagFor) : undefined;
      if (pair && renderer.htmlPairs) {
        parts.push(renderer.htmlPairs.render(pair.tag, inline(tokens.slice(index + 1, pair.closeIndex), context), context));
        index = pair.closeIndex;
      } else {
        parts.push(inlineToken(token, context));
      }
    }
    return renderer.joinInline(parts);
  }

  function inlineToken(token: Token, context: C): Inline {
    const generic = token as Tokens.Generic;
    switch (generic.type) {
      case 'text':
        return generic.tokens ? inline(generic.tokens, context) : renderer.text(String(generic.text), context);
      case 'escape':
        return renderer.escape(String(generic.text), context);
      case 'strong':
        return renderer.style('bold', (inner) => inline((token as Tokens.Strong).tokens, inner), context);
      case 'em':
        return renderer.style('italic', (inner) => inline((token as Tokens.Em).tokens, inner), context);
      case 'del':
        return renderer.style('strike', (inner) => inline((token as Tokens.Del).tokens, inner), context);
      case 'codespan':
        return renderer.codespan((token as Tokens.Codespan).text, context);
      case 'br':
        return renderer.lineBreak(context);
      case 'link':
        return renderer.link(token as Tokens.Link, (inner) => inline((token as Tokens.Link).tokens, inner), context);
      case 'image':
        return renderer.image(token as Tokens.Image, context);
      case 'html':
        return renderer.inlineHtml(generic, context);
      default:
        return renderer.otherInline(generic, context);
    }
  }

  return { blocks, inline };
}

/** `<u>` … `</u>` among the same siblings (nesting of the same tag counted). */
function matchingHtmlPair(tokens: Token[], openIndex: number, tagFor: (name: string) => string | undefined): { tag: string; closeIndex: number } | undefined {
  const openName = /^<([a-z]+)>$/i.exec(String((tokens[openIndex] as Tokens.Generic).text).trim())?.[1]?.toLowerCase();
  const tag = openName === undefined ? undefined : tagFor(openName);
  if (tag === undefined) return undefined;
  let depth = 0;
  for (let index = openIndex + 1; index < tokens.length; index += 1) {
    const token = tokens[index] as Tokens.Generic;
    if (token.type !== 'html') continue;
    const text = String(token.text).trim().toLowerCase();
    if (text === `<${openName}>`) depth += 1;
    if (text === `</${openName}>`) {
      if (depth === 0) return { tag, closeIndex: index };
      depth -= 1;
    }
  }
  return undefined;
}

/** The text of inline tokens without any markup (table cells, link labels): `leaf` reads the tokens that hold no others. */
export function plainInline(tokens: Token[], leaf: (token: Tokens.Generic) => string): string {
  let output = '';
  for (const token of tokens) {
    const generic = token as Tokens.Generic;
    output += Array.isArray(generic.tokens) ? plainInline(generic.tokens, leaf) : leaf(generic);
  }
  return output;
}
