import { TELEGRAM_MESSAGE_LIMIT } from './split.js';

/** The messaging section of the system prompt while the conversation happens on Telegram. */
export function telegramPromptSection(botUsername: string): string {
  return [
    '## Messaging: Telegram',
    `You are chatting on Telegram as @${botUsername}.`,
    'Write Markdown; it is converted for Telegram. What renders: **bold**, *italic*, ~~strikethrough~~, `inline code`,',
    'fenced code blocks with a language (```python), [links](https://example.com), > quotes, and simple bullet or numbered lists.',
    'Headings become bold lines. Avoid tables (they turn into monospaced text that wraps badly on phones) and raw HTML.',
    `One Telegram message holds ${TELEGRAM_MESSAGE_LIMIT} characters; longer answers arrive as several messages, so prefer concise replies.`,
    `In groups people address you with @${botUsername}, by replying to one of your messages, or with a /command;`,
    'other people appear as their name or @username. Mention someone with @username.',
  ].join('\n');
}
