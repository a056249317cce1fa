import { FEISHU_TEXT_LIMIT } from './split.js';

/** The messaging section of the system prompt while the conversation happens on Feishu / Lark. */
export function feishuPromptSection(botName: string | undefined): string {
  const name = botName ? `"${botName}"` : 'the bot';
  return [
    '## Messaging: Feishu / Lark',
    `You are chatting on Feishu (Lark outside China) as ${name}. Your answers are posted as replies to the message you answer.`,
    'Write Markdown; it is converted for Feishu. Plain answers become rich-text posts, where **bold**, *italic*, ~~strikethrough~~,',
    '[links](https://example.com), bullet and numbered lists, > quotes and headings (shown bold) render; inline `code` keeps its backticks.',
    'Answers with fenced code blocks (```python) or tables are sent as cards, which render code with highlighting and tables too.',
    'No raw HTML, no images.',
    `One message holds about ${FEISHU_TEXT_LIMIT} characters; longer answers arrive as several replies, so prefer concise answers.`,
    `In group chats people address you by @mentioning ${name} (or by replying to one of your messages); you see other people's mentions as @Name.`,
    'You cannot @mention people yourself: write their name.',
  ].join('\n');
}
