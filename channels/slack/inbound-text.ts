import { unescapeMrkdwn } from './mrkdwn-text.js';

/** Chat commands people may type after mentioning the bot (`@bot stop`), as Slack keeps `/…` for slash commands. */
const MENTION_COMMANDS = new Set(['stop', 'new', 'reset', 'status', 'help', 'compact', 'usage', 'model']);

/** Does the text mention this user (`<@U123>` or `<@U123|name>`)? */
export function mentionsUser(text: string, userId: string): boolean {
  return new RegExp(`<@${userId}(?:\\|[^>]*)?>`).test(text);
}

/**
 * Slack's wire text → what the person wrote: the bot's own mention removed, other mentions as `@U123`
 * (or `@name`), channels as `#name`, links as `label (url)`, and `&amp; &lt; &gt;` unescaped.
 * `<@bot> stop` (and the other chat commands) becomes `/stop`.
 */
export function readableText(text: string, botUserId: string): string {
  const ownMention = new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g');
  const startsWithMention = new RegExp(`^\\s*<@${botUserId}(?:\\|[^>]*)?>`).test(text);
  const withoutMention = text.replace(ownMention, ' ').replace(/[ \t]{2,}/g, ' ').trim();
  const readable = unescapeMrkdwn(withoutMention.replace(/<([^<>]*)>/g, (_whole, inner: string) => readableToken(inner)));
  return startsWithMention ? commandForm(readable) : readable;
}

function readableToken(inner: string): string {
  const pipe = inner.indexOf('|');
  const target = pipe === -1 ? inner : inner.slice(0, pipe);
  const label = pipe === -1 ? undefined : inner.slice(pipe + 1);
  if (target.startsWith('@')) return label ? `@${label.replace(/^@/, '')}` : target;
  if (target.startsWith('#')) return label ? `#${label}` : target;
  if (target.startsWith('!')) return specialMention(target, label);
  if (label === undefined || label === target || `mailto:${label}` === target) return target.replace(/^mailto:/, '');
  return `${label} (${target})`;
}

/** `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S1|@team>`, `<!date^…|fallback>`. */
function specialMention(target: string, label: string | undefined): string {
  if (label !== undefined) return label;
  const name = target.slice(1).split('^')[0] ?? '';
  return ['here', 'channel', 'everyone'].includes(name) ? `@${name}` : target;
}

function commandForm(text: string): string {
  const match = /^[:,]?\s*([A-Za-z]+)(?=\s|$)([\s\S]*)$/.exec(text);
  const word = match?.[1]?.toLowerCase();
  if (match === null || word === undefined || !MENTION_COMMANDS.has(word)) return text;
  return `/${word}${match[2] ?? ''}`;
}
