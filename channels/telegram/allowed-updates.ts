/**
 * The update types the bot asks Telegram for (webhook and long polling alike): messages, button clicks
 * (approval requests), and the bot's own membership changes (a chat that removed it).
 */
export const ALLOWED_UPDATES = ['message', 'callback_query', 'my_chat_member'] as const;
