import { afterAll, describe, expect, it } from 'vitest';
import { SLACK_REQUEST_TIMEOUT } from '../../channels/slack/web-clients.js';
import { BotError, type ConversationRef, type DoubtResolution } from '../../src/core/index.js';
import { createRedisClient, KeySpace, runningTurnValue, TurnStateStore } from '../../src/redis/index.js';
import { DeliveryRecords, type TurnLease } from '../../src/turn/delivery-records.js';
import { startSlackChannel } from '../channels/slack/channel-fixture.js';
import { startSlackDouble } from '../doubles/slack-double.js';
import { waitFor } from '../support/service-process.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

/**
 * Issue 53: Slack answers a recorded post with 429 and a Retry-After that ends past the deadline the post's intent
 * recorded. The holder must not post it again then: a takeover that waited the deadline out and did not find the
 * part posts it itself, and the late retry would be a second answer. The retry is refused (a retryable failure:
 * the turn is tried again, settling the part first). The client's timeout is shortened (this file runs in a
 * worker of its own) so that the deadline is a few seconds away.
 */
const CALL_TIMEOUT_MS = 400;
SLACK_REQUEST_TIMEOUT.requestMs = CALL_TIMEOUT_MS;
const RETRY_AFTER_S = 8;

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefix = uniqueName('ratelimited');
const keys = new KeySpace(prefix, 1, target.cluster);
const turnState = new TurnStateStore(redis, keys);

afterAll(async () => {
  await deleteTestKeys(redis, `{${prefix}:*`);
  await redis.quit();
});

/** The turn is `lease.holder`'s (its lease running, its worker beating), as an acquire or a take-back makes it. */
async function hold(lease: TurnLease): Promise<void> {
  const session = keys.session(lease.sessionKey);
  await redis.hset(session.turns, lease.turnId, runningTurnValue(lease.holder, Date.now() + 60_000));
  await redis.hset(session.alive, lease.holder.split('/')[0]!, String(Date.now() + 60_000));
}

describe('fault: Slack rate-limits a recorded post with a Retry-After past its deadline', () => {
  it('the holder does not post it again past the deadline; the takeover posts it once', async () => {
    const double = await startSlackDouble();
    try {
      const channel = await startSlackChannel(double);
      const to: ConversationRef = { channel: 'slack', accountId: 'T0TEAM01', chatId: 'D0RATE01', chatType: 'dm', messageId: '1700000100.000200' };
      const resolutions: DoubtResolution[] = [];
      const records = new DeliveryRecords(turnState, (_channel, resolution) => resolutions.push(resolution));
      const first: TurnLease = { sessionKey: 'agent:main:slack:T0TEAM01:dm:U0RATE01', turnId: 'turn-1', holder: 'worker-first/token' };
      await hold(first);
      double.failNext('chat.postMessage', { status: 429, retryAfter: RETRY_AFTER_S });
      const firstAttempt = channel.send(to, 'the answer, once', records.progress({ lease: first, stream: 'answer', channel: 'slack' })).catch((error: unknown) => error);
      await waitFor(() => double.callsOf('chat.postMessage').length > 0, { what: 'the rate-limited post' });
      // the first worker stalls waiting out the Retry-After; another takes the turn over
      const takeover = { ...first, holder: 'worker-takeover/token' };
      await hold(takeover);
      const progress = await records.resume(takeover, 'answer', 'slack');
      expect(progress.inDoubt?.part).toBe(0);
      await channel.send(to, 'the answer, once', progress);
      const failure = await firstAttempt;
      await new Promise((resolve) => setTimeout(resolve, 500)); // a late retry shows itself
      expect(double.messagesIn('D0RATE01').map((message) => message.text)).toEqual(['the answer, once']);
      expect(resolutions).toEqual(['not_sent']);
      // the first attempt gave the part up as a failure the turn's retry mends
      expect(failure).toBeInstanceOf(BotError);
      expect((failure as BotError).isRetryable).toBe(true);
    } finally {
      await double.close();
    }
  }, 30_000);

  it('a Retry-After that ends well before the deadline is still waited out and the post made once', async () => {
    SLACK_REQUEST_TIMEOUT.requestMs = 15_000;
    const double = await startSlackDouble();
    try {
      const channel = await startSlackChannel(double);
      const to: ConversationRef = { channel: 'slack', accountId: 'T0TEAM01', chatId: 'D0RATE02', chatType: 'dm', messageId: '1700000100.000300' };
      const lease: TurnLease = { sessionKey: 'agent:main:slack:T0TEAM01:dm:U0RATE02', turnId: 'turn-2', holder: 'worker-one/token' };
      await hold(lease);
      double.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
      const receipt = await channel.send(to, 'after a short wait', new DeliveryRecords(turnState).progress({ lease, stream: 'answer', channel: 'slack' }));
      expect(receipt.messageIds).toHaveLength(1);
      expect(double.callsOf('chat.postMessage')).toHaveLength(2);
      expect(double.messagesIn('D0RATE02').map((message) => message.text)).toEqual(['after a short wait']);
    } finally {
      SLACK_REQUEST_TIMEOUT.requestMs = CALL_TIMEOUT_MS;
      await double.close();
    }
  }, 30_000);
});
