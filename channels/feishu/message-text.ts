/**
 * The text of a received `text` or `post` message, with mentions still as Feishu's placeholders
 * (`@_user_1`); inbound.ts resolves them. Undefined when the content is not what its type promises.
 */
export function messageText(messageType: string, content: string): string | undefined {
  const parsed = parseObject(content);
  if (parsed === undefined) return undefined;
  if (messageType === 'text') return typeof parsed.text === 'string' ? parsed.text : undefined;
  if (messageType === 'post') return postText(parsed);
  return undefined;
}

/** Rich text arrives as `{title, content}`, or wrapped in a locale key (`{"zh_cn": {...}}`) as it is sent. */
function postText(parsed: Record<string, unknown>): string | undefined {
  const body = Array.isArray(parsed.content) ? parsed : Object.values(parsed).map(asObject).find((value) => Array.isArray(value?.content));
  if (body === undefined || !Array.isArray(body.content)) return undefined;
  const lines: string[] = [];
  if (typeof body.title === 'string' && body.title.trim() !== '') lines.push(body.title.trim());
  for (const paragraph of body.content) {
    if (Array.isArray(paragraph)) lines.push(paragraph.map((element) => elementText(asObject(element))).join(''));
  }
  return lines.join('\n');
}

function elementText(element: Record<string, unknown> | undefined): string {
  const text = typeof element?.text === 'string' ? element.text : '';
  switch (element?.tag) {
    case 'text':
    case 'md':
      return text;
    case 'a': {
      const href = typeof element.href === 'string' ? element.href : '';
      return text === '' || text === href ? href : href === '' ? text : `${text} (${href})`;
    }
    case 'at':
      // in received posts `user_id` is the same `@_user_N` placeholder the text type uses
      return typeof element.user_id === 'string' && element.user_id.startsWith('@_') ? element.user_id : `@${String(element.user_name ?? element.user_id ?? '')}`;
    case 'code_block':
      return `\n\`\`\`${typeof element.language === 'string' ? element.language.toLowerCase() : ''}\n${text}\n\`\`\`\n`;
    case 'emotion':
      return typeof element.emoji_type === 'string' ? `:${element.emoji_type}:` : '';
    case 'img':
      return '[image]';
    case 'media':
      return '[video]';
    case 'hr':
      return '---';
    default:
      return text;
  }
}

function parseObject(content: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(content));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
