import type { WebClient } from '@slack/web-api';
import type { ConversationRef, SettledPart } from '../../src/core/index.js';
import type { Logger } from '../../src/observability/logger.js';
import { slackErrorCode, toPlatformError } from './errors.js';
import { withRateLimitRetry } from './rate-limit.js';

/** The `event_type` of the metadata every part the bot posts carries (https://docs.slack.dev/messaging/message-metadata). */
export const DELIVERY_EVENT_TYPE = 'chatbot_reply_part';
/** How far before the recorded intent the history is read (clocks differ a little). */
const LOOKBACK_MS = 60_000;
const PAGE_SIZE = 100;
const MAX_PAGES = 5;

/** The metadata that names part `part` of the delivery `key`, posted with it (`chat.postMessage` `metadata`). */
export function partMetadata(key: string, part: number) {
  return { event_type: DELIVERY_EVENT_TYPE, event_payload: { delivery: key, part } };
}

/**
 * A part in doubt: Slack has no idempotency key, but the bot's own messages carry their part's metadata, so the
 * conversation's recent history (`conversations.replies` in a thread, `conversations.history` otherwise, with
 * `include_all_metadata`) says whether the part went out. A history the bot may not read (a missing
 * `*:history` scope) cannot tell: the part is sent again and counted as unverified.
 */
export async function settleByMetadata(client: WebClient, to: ConversationRef, key: string, part: number, sinceMs: number, logger: Logger): Promise<SettledPart> {
  const oldest = ((sinceMs - LOOKBACK_MS) / 1000).toFixed(6);
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const common = { channel: to.chatId, oldest, inclusive: true, include_all_metadata: true, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) };
      const threadTs = to.threadId;
      const result =
        threadTs !== undefined
          ? await withRateLimitRetry(() => client.conversations.replies({ ...common, ts: threadTs }))
          : await withRateLimitRetry(() => client.conversations.history(common));
      const match = result.messages?.find((message) => {
        const metadata = message.metadata as { event_type?: string; event_payload?: Record<string, unknown> } | undefined;
        return metadata?.event_type === DELIVERY_EVENT_TYPE && metadata.event_payload?.delivery === key && Number(metadata.event_payload.part) === part;
      });
      if (match?.ts) return { id: match.ts, resolution: 'found' };
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return { resolution: 'not_sent' };
    }
    return { resolution: 'not_sent' };
  } catch (error) {
    const failure = toPlatformError(error, to.threadId !== undefined ? 'conversations.replies' : 'conversations.history');
    // a passing failure: the turn is retried and asks again
    if (failure.isRetryable || slackErrorCode(error) === undefined) throw failure;
    logger.warn({ channel: to.chatId, error: slackErrorCode(error) }, 'could not read the conversation to settle a part in doubt; sending it again');
    return { resolution: 'unverified_resend' };
  }
}
