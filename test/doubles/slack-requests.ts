import { createHmac } from 'node:crypto';

/** What Slack posts to our service: signed requests and the events and interactions they carry. */
export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
  rawBody: string;
}

export interface SigningOptions {
  /** Unix seconds; default now. */
  timestamp?: number;
  secret?: string;
  /** Form-encode the body (slash commands, interactions) instead of JSON. */
  form?: boolean;
  /** Adds `X-Slack-Retry-Num` / `X-Slack-Retry-Reason`, as on Slack's redeliveries. */
  retryNum?: number;
}

/** A request as Slack would post it to our service, with a correct v0 signature over the exact body. */
export function signedRequest(path: string, body: unknown, options: SigningOptions & { secret: string }): SignedRequest {
  const rawBody =
    typeof body === 'string'
      ? body
      : options.form
        ? new URLSearchParams(Object.entries(body as Record<string, unknown>).map(([key, value]): [string, string] => [key, String(value)])).toString()
        : JSON.stringify(body);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', options.secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
  return {
    path,
    rawBody,
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...(options.retryNum !== undefined ? { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' } : {}),
    },
  };
}

/** A `message` or `app_mention` event as the builders make it (extra fields as given). */
export interface SlackTestEvent {
  type: string;
  channel: string;
  user: string;
  text: string;
  ts: string;
  event_ts: string;
  [field: string]: unknown;
}

/** Builders for the Events API payloads and slash commands Slack would send; each message gets a fresh ts. */
export function createEventFactory(bot: { botUserId: string; teamId: string }) {
  let counter = 0;
  const ts = (): string => `${Math.floor(Date.now() / 1000)}.${String(++counter + 500_000).padStart(6, '0')}`;
  const envelope = (fields: Omit<SlackTestEvent, 'event_ts'>) => ({
    token: 'legacy-verification-token',
    team_id: bot.teamId,
    api_app_id: 'A0APP001',
    event: { event_ts: fields.ts, ...fields } as SlackTestEvent,
    type: 'event_callback' as const,
    event_id: `Ev${String(++counter).padStart(8, '0')}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: bot.teamId, user_id: bot.botUserId, is_bot: true }],
  });
  /** An assistant thread event (https://docs.slack.dev/reference/events/assistant_thread_started): the thread in the user's DM with the app, and the channel they view. */
  const assistantEvent = (type: 'assistant_thread_started' | 'assistant_thread_context_changed', user: string, threadTs: string, viewing: string | undefined) => {
    const { event: _unused, ...wrapper } = envelope({ type: 'message', channel: '', user, text: '', ts: threadTs });
    return {
      ...wrapper,
      event: {
        type,
        assistant_thread: {
          user_id: user,
          context: viewing === undefined ? {} : { channel_id: viewing, team_id: bot.teamId, enterprise_id: null },
          channel_id: `D${user.slice(1)}`,
          thread_ts: threadTs,
        },
        event_ts: ts(),
      },
    };
  };
  const message = (channel: string, channelType: string, user: string, text: string, extra: object) =>
    envelope({ type: 'message', channel, channel_type: channelType, user, text, ts: ts(), team: bot.teamId, ...extra });
  return {
    dm: (user: string, text: string, extra: object = {}) => message(`D${user.slice(1)}`, 'im', user, text, extra),
    /** `user` opens a new assistant thread (its ts is new) while viewing `viewing` (a channel id; none: no context). */
    assistantThreadStarted: (user: string, viewing?: string, threadTs = ts()) => assistantEvent('assistant_thread_started', user, threadTs, viewing),
    /** `user` moved to `viewing` while the assistant thread `threadTs` is open. */
    assistantContextChanged: (user: string, threadTs: string, viewing: string) => assistantEvent('assistant_thread_context_changed', user, threadTs, viewing),
    /** `user` writes in the assistant thread `threadTs` (a thread of their DM with the app). */
    assistantMessage: (user: string, threadTs: string, text: string, extra: object = {}) => message(`D${user.slice(1)}`, 'im', user, text, { thread_ts: threadTs, ...extra }),
    /** `app_mention` for `<@bot> text`. */
    mention: (channel: string, user: string, text: string, extra: object = {}) =>
      envelope({ type: 'app_mention', channel, user, text: `<@${bot.botUserId}> ${text}`, ts: ts(), team: bot.teamId, ...extra }),
    channelMessage: (channel: string, user: string, text: string, extra: object = {}) => message(channel, 'channel', user, text, extra),
    threadReply: (channel: string, user: string, text: string, threadTs: string, extra: object = {}) =>
      message(channel, 'channel', user, text, { thread_ts: threadTs, ...extra }),
    /**
     * The form fields of a `block_actions` interaction: `user` clicked the button carrying `value` on the bot's
     * message `messageTs` (post to the interactions route with `{ form: true }`).
     */
    blockAction: (channel: string, user: string, value: string, messageTs: string, threadTs?: string) => ({
      payload: JSON.stringify({
        type: 'block_actions',
        team: { id: bot.teamId, domain: 'double' },
        user: { id: user, username: `user-${user.toLowerCase()}`, name: `user-${user.toLowerCase()}`, team_id: bot.teamId },
        api_app_id: 'A0APP001',
        token: 'legacy-verification-token',
        container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false, ...(threadTs ? { thread_ts: threadTs } : {}) },
        trigger_id: `${++counter}.trigger`,
        channel: { id: channel, name: 'channel' },
        message: { type: 'message', ts: messageTs, text: 'approval' },
        response_url: 'https://hooks.slack.test/actions/1',
        actions: [{ type: 'button', action_id: `approval_${value.split(':').at(-1)}`, block_id: 'approval', value, action_ts: ts() }],
      }),
    }),
    /** The form fields of a slash command (post with `{ form: true }`). */
    slashCommand: (command: string, options: { channel?: string; user?: string; text?: string } = {}) => ({
      token: 'legacy-verification-token',
      team_id: bot.teamId,
      team_domain: 'double',
      channel_id: options.channel ?? 'C0GENERAL',
      channel_name: options.channel?.startsWith('D') ? 'directmessage' : 'general',
      user_id: options.user ?? 'U0USER001',
      user_name: 'someone',
      command,
      text: options.text ?? '',
      api_app_id: 'A0APP001',
      response_url: 'https://hooks.slack.test/commands/1',
      trigger_id: `${++counter}.trigger`,
    }),
  };
}
