/**
 * Reading back what the bot posted, as the Slack Web API serves it: `conversations.history` (a channel's
 * top-level messages, newest first), `conversations.replies` (a thread: its parent, then the replies, oldest
 * first), both paged by `cursor` and filtered by `oldest` (inclusive with `inclusive`), with each message's
 * `metadata` only when `include_all_metadata` is set; and `files.info` with the channels a file was shared to.
 * https://docs.slack.dev/reference/methods/conversations.history, …/conversations.replies, …/files.info
 */

export interface PostedMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  deleted: boolean;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface SharedFile {
  id: string;
  name: string;
  /** Channel → the ts of the message that shared it (set when the upload was completed into it). */
  shares: Map<string, { ts: string; threadTs: string | undefined }>;
}

type Answer = { status: number; body: Record<string, unknown> };

const ok = (body: Record<string, unknown>): Answer => ({ status: 200, body: { ok: true, ...body } });
const error = (code: string): Answer => ({ status: 200, body: { ok: false, error: code } });

/** Where `conversations.history`, `conversations.replies` and `files.info` are answered from. */
export function createSlackHistory(botUserId: string, messages: Map<string, PostedMessage>, files: Map<string, SharedFile>) {
  function page(list: PostedMessage[], params: Record<string, any>, withMetadata: boolean): Answer {
    const oldest = params.oldest !== undefined ? Number(params.oldest) : -Infinity;
    const inclusive = params.inclusive === true || params.inclusive === 'true' || params.inclusive === '1';
    const filtered = list.filter((message) => (inclusive ? Number(message.ts) >= oldest : Number(message.ts) > oldest));
    const limit = Math.min(Math.max(Number(params.limit ?? 100) || 100, 1), 999);
    const start = params.cursor ? Number(Buffer.from(String(params.cursor), 'base64').toString('utf8').replace('next_ts:', '')) : 0;
    const slice = filtered.slice(start, start + limit);
    const more = start + limit < filtered.length;
    return ok({
      messages: slice.map((message) => ({
        type: 'message',
        user: botUserId,
        bot_id: 'B0BOT001',
        text: message.text,
        ts: message.ts,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        ...(withMetadata && message.metadata ? { metadata: message.metadata } : {}),
      })),
      has_more: more,
      response_metadata: { next_cursor: more ? Buffer.from(`next_ts:${start + limit}`).toString('base64') : '' },
    });
  }

  const inChannel = (channel: string) => [...messages.values()].filter((message) => message.channel === channel && !message.deleted);
  const byTs = (a: PostedMessage, b: PostedMessage) => Number(a.ts) - Number(b.ts);

  return {
    answer(method: string, params: Record<string, any>): Answer | undefined {
      const withMetadata = params.include_all_metadata === true || params.include_all_metadata === 'true' || params.include_all_metadata === '1';
      switch (method) {
        case 'conversations.history': {
          if (!params.channel) return error('channel_not_found');
          const topLevel = inChannel(String(params.channel)).filter((message) => message.threadTs === undefined || message.threadTs === message.ts);
          return page(topLevel.sort(byTs).reverse(), params, withMetadata);
        }
        case 'conversations.replies': {
          if (!params.channel) return error('channel_not_found');
          if (!params.ts) return error('invalid_arguments');
          const thread = inChannel(String(params.channel)).filter((message) => message.ts === params.ts || message.threadTs === params.ts);
          // a thread the bot started from a user's message: the parent is not the bot's, only the replies are known here
          if (thread.length === 0) return ok({ messages: [], has_more: false, response_metadata: { next_cursor: '' } });
          return page(thread.sort(byTs), params, withMetadata);
        }
        case 'files.info': {
          const file = files.get(String(params.file ?? ''));
          if (!file) return error('file_not_found');
          const shares: Record<string, Array<{ ts: string; thread_ts?: string }>> = {};
          for (const [channel, share] of file.shares) shares[channel] = [{ ts: share.ts, ...(share.threadTs ? { thread_ts: share.threadTs } : {}) }];
          const visibility = Object.keys(shares).some((channel) => channel.startsWith('C')) ? 'public' : 'private';
          return ok({ file: { id: file.id, name: file.name, ...(file.shares.size > 0 ? { shares: { [visibility]: shares } } : {}) } });
        }
        default:
          return undefined;
      }
    },
  };
}
