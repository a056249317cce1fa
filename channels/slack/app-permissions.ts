/**
 * What the Slack app must be granted for everything this channel does: its bot token scopes and the bot events
 * it subscribes to, each with what it is for. `docs/slack-app-manifest.yaml` lists exactly these (a test holds
 * them equal), and `doctor` compares the scopes a token really has (Slack's `x-oauth-scopes` header on
 * `auth.test`) with `SLACK_BOT_SCOPES`, naming what is missing.
 */
export interface SlackPermission {
  name: string;
  /** What the service uses it for, one short phrase (shown by doctor and in docs/slack.md). */
  purpose: string;
}

export const SLACK_BOT_SCOPES: readonly SlackPermission[] = [
  { name: 'app_mentions:read', purpose: 'receive @mentions of the bot in channels (app_mention events)' },
  { name: 'channels:history', purpose: "receive public channels' messages, and read them back to settle a reply part in doubt after a crash" },
  { name: 'groups:history', purpose: "receive private channels' messages, and read them back to settle a reply part in doubt" },
  { name: 'im:history', purpose: 'receive direct messages, and read them back to settle a reply part in doubt' },
  { name: 'mpim:history', purpose: 'receive group DMs, and read them back to settle a reply part in doubt' },
  { name: 'channels:read', purpose: "public channels' names for the prompt (conversations.info), and the bot's own joins and leaves" },
  { name: 'groups:read', purpose: "private channels' names for the prompt, and the bot's own joins and leaves" },
  { name: 'chat:write', purpose: 'post, edit (live replies, approval buttons) and delete its answers; ephemeral refusals' },
  { name: 'reactions:write', purpose: 'the 👀 working indicator on the message being answered' },
  { name: 'assistant:write', purpose: 'assistant threads: the "is thinking…" status, the suggested prompts under the greeting, and the thread\'s title' },
  { name: 'files:read', purpose: 'download files people share with it (url_private_download, files.info)' },
  { name: 'files:write', purpose: 'send files back (send_file: files.getUploadURLExternal, files.completeUploadExternal)' },
  { name: 'commands', purpose: 'slash commands (/stop, /new, …) at /webhooks/slack/commands or over Socket Mode' },
];

export const SLACK_BOT_EVENTS: readonly SlackPermission[] = [
  { name: 'app_mention', purpose: 'the bot is @mentioned in a channel' },
  { name: 'message.channels', purpose: 'messages in public channels the bot is in (threads it answered, context)' },
  { name: 'message.groups', purpose: 'messages in private channels the bot is in' },
  { name: 'message.im', purpose: 'direct messages to the bot' },
  { name: 'message.mpim', purpose: 'group DMs the bot is in' },
  { name: 'assistant_thread_started', purpose: 'a person opened an assistant thread: the greeting and suggested prompts' },
  { name: 'assistant_thread_context_changed', purpose: 'the channel the person views beside an assistant thread, one line of context for the next message' },
  { name: 'member_joined_channel', purpose: 'the bot added to a channel: its paused scheduled tasks resume' },
  { name: 'member_left_channel', purpose: "the bot left a channel: the chat's tasks pause and its waiting work is dropped" },
  { name: 'channel_left', purpose: 'the bot removed from a public channel (same)' },
  { name: 'group_left', purpose: 'the bot removed from a private channel (same)' },
  { name: 'app_uninstalled', purpose: "the app uninstalled: every chat of the workspace is treated as left" },
  { name: 'tokens_revoked', purpose: "the bot token revoked: every chat of the workspace is treated as left" },
];

/** What doctor says to do about missing scopes. */
export const MISSING_SCOPES_HINT = 'add them under OAuth & Permissions (docs/slack-app-manifest.yaml lists every scope) and reinstall the app';

/** The required scopes a token lacks, in `SLACK_BOT_SCOPES` order. */
export function missingScopes(granted: readonly string[]): SlackPermission[] {
  const have = new Set(granted);
  return SLACK_BOT_SCOPES.filter((scope) => !have.has(scope.name));
}

/**
 * doctor's line for one Slack account: the granted scopes against the required ones. Throws, naming each missing
 * scope and what it is for, when the app lacks one; `undefined` granted scopes (Slack sent no `x-oauth-scopes`)
 * cannot be checked and says so.
 */
export function describeScopes(granted: readonly string[] | undefined): string {
  if (granted === undefined) return 'Slack did not report the token\'s scopes (no x-oauth-scopes header): not checked';
  const missing = missingScopes(granted);
  if (missing.length > 0) {
    const named = missing.map((scope) => `${scope.name} (${scope.purpose})`).join('; ');
    throw new Error(`the app lacks ${missing.length} scope(s): ${named}`);
  }
  return `all ${SLACK_BOT_SCOPES.length} scopes the service uses are granted`;
}
