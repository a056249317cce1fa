/** Slack's control sequences: user, channel and group mentions, and the special `<!here>` family. */
const SLACK_TOKEN = /<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+|!(?:here|channel|everyone)|!subteam\^[A-Z0-9]+)(?:\|[^<>]*)?>/g;

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Slack's three reserved characters; everything else in mrkdwn is literal. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text but keeps mentions the model wrote as Slack tokens (`<@U123>`, `<!here>`), so they still notify. */
export function escapeKeepingMentions(text: string): string {
  let output = '';
  let last = 0;
  for (const match of text.matchAll(SLACK_TOKEN)) {
    output += escapeMrkdwn(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return output + escapeMrkdwn(text.slice(last));
}

/** HTML entities a model may write in Markdown text (`&amp;`, `&#39;`), decoded before Slack escaping. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (whole, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return codePoint(Number.parseInt(entity.slice(2), 16)) ?? whole;
    if (entity.startsWith('#')) return codePoint(Number.parseInt(entity.slice(1), 10)) ?? whole;
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

function codePoint(value: number): string | undefined {
  return Number.isFinite(value) && value > 0 && value <= 0x10ffff ? String.fromCodePoint(value) : undefined;
}

/** Slack's own escaping undone: what a person typed. */
export function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
