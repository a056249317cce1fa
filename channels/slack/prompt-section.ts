import { SLACK_MESSAGE_LIMIT } from './split.js';

/** The messaging section of the system prompt while the conversation happens on Slack. */
export function slackPromptSection(botUserId: string): string {
  return [
    '## Messaging: Slack',
    `You are chatting on Slack as the app user <@${botUserId}>.`,
    'Write Markdown; it is converted to Slack mrkdwn. What renders: **bold**, *italic*, ~~strikethrough~~, `inline code`,',
    'fenced code blocks (shown without syntax highlighting), [links](https://example.com), > quotes, and bullet or numbered lists.',
    'Headings become bold lines and tables become monospaced blocks, so prefer short lists over tables; no raw HTML.',
    `One Slack message holds ${SLACK_MESSAGE_LIMIT} characters; longer answers arrive as several messages, so prefer concise replies.`,
    'In channels people address you with an @mention; you answer in the thread of that message, and later messages in',
    'that thread reach you too. People appear as <@U…> ids or @names; to mention someone write <@USERID> with their id.',
  ].join('\n');
}
