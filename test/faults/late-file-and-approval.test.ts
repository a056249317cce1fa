import { afterAll, describe, expect, it } from 'vitest';
import { SEND_DISPATCH_WINDOW_MS, SEND_LANDING_MARGIN_MS } from '../../channels/shared/index.js';
import { SLACK_REQUEST_TIMEOUT } from '../../channels/slack/web-clients.js';
import { TELEGRAM_SEND_TIMEOUTS } from '../../channels/telegram/send-timeouts.js';
import type { Channel, ConversationRef, DoubtResolution, OutboundFile } from '../../src/core/index.js';
import { createRedisClient, KeySpace, runningTurnValue, TurnStateStore } from '../../src/redis/index.js';
import { DeliveryRecords, type StreamName, type TurnLease } from '../../src/turn/delivery-records.js';
import { startSlackDouble } from '../doubles/slack-double.js';
import { startTelegramDouble } from '../doubles/telegram-double.js';
import { startSlackChannel } from '../channels/slack/channel-fixture.js';
import { startChannel } from '../channels/telegram/channel-fixture.js';
import { waitFor } from '../support/service-process.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

/**
 * Issue 53, for the parts that are not text: a `send_file` file and an approval request on Telegram and Slack. A
 * holder's platform call is on its way (held by the double) when the turn is taken over; it reaches the chat only
 * after the takeover first looked for it. The holder's intent must record a deadline (the call's own timeout in
 * it) that the takeover waits out, so it finds the late part instead of sending it a second time.
 * The platform timeouts are shortened (this file runs in a worker of its own) so that the wait is a few seconds.
 */
const CALL_TIMEOUT_MS = 400;
TELEGRAM_SEND_TIMEOUTS.messageMs = CALL_TIMEOUT_MS;
TELEGRAM_SEND_TIMEOUTS.uploadMs = CALL_TIMEOUT_MS;
SLACK_REQUEST_TIMEOUT.requestMs = CALL_TIMEOUT_MS;

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefix = uniqueName('late');
const keys = new KeySpace(prefix, 1, target.cluster);
const turnState = new TurnStateStore(redis, keys);

afterAll(async () => {
  await deleteTestKeys(redis, `{${prefix}:*`);
  await redis.quit();
});

let turns = 0;
/** A running turn whose holder's lease runs and whose worker beats. */
async function heldTurn(holder: string): Promise<TurnLease> {
  turns += 1;
  const lease = { sessionKey: `agent:main:test:x:dm:${turns}`, turnId: `turn-${turns}`, holder: `${holder}/token` };
  await take(lease);
  return lease;
}

/** The turn is now `lease.holder`'s, as the acquire's take-back makes it: the earlier holder's writes are refused. */
async function take(lease: TurnLease): Promise<void> {
  const session = keys.session(lease.sessionKey);
  await redis.hset(session.turns, lease.turnId, runningTurnValue(lease.holder, Date.now() + 60_000));
  await redis.hset(session.alive, lease.holder.split('/')[0]!, String(Date.now() + 60_000));
}

const FILE: OutboundFile = { bytes: Buffer.from('%PDF-1.4 the report'), fileName: 'report.pdf', mimeType: 'application/pdf', kind: 'document', caption: 'the report' };
const PROMPT = { approvalId: 'ap-late-1', toolName: 'delete_everything', argumentsPreview: '{"really":true}' };

interface Case {
  name: string;
  stream: StreamName;
  open(): Promise<{
    channel: Channel;
    to: ConversationRef;
    /** The platform call that creates the part. */
    method: string;
    /** How many calls of the takeover's look for the part the platform has seen. */
    lookups(): number;
    /** The bot's parts of this kind in the chat. */
    seen(): number;
    hold: (method: string) => { arrived: Promise<void>; release: () => void };
    close(): Promise<void>;
  }>;
  send(channel: Channel, to: ConversationRef, progress: Parameters<Channel['sendFile']>[2]): Promise<unknown>;
}

async function telegram() {
  const double = await startTelegramDouble();
  const channel = await startChannel(double);
  const question = double.makeUpdate.privateText(7301, 'send me the report');
  const to: ConversationRef = { channel: 'telegram', accountId: String(double.botId), chatId: '7301', chatType: 'dm', messageId: String(question.message!.message_id) };
  return { double, channel, to, lookups: () => double.callsOf('editMessageReplyMarkup').length, hold: double.holdBeforeCommit.bind(double), close: () => double.close() };
}

async function slack() {
  const double = await startSlackDouble();
  const channel = await startSlackChannel(double);
  const to: ConversationRef = { channel: 'slack', accountId: 'T0TEAM01', chatId: 'D0LATE01', chatType: 'dm', messageId: '1700000100.000200' };
  return { double, channel, to, hold: double.holdBeforeCommit.bind(double), close: () => double.close() };
}

const cases: Case[] = [
  {
    name: 'telegram: a file (sendDocument)',
    stream: 'file:0',
    async open() {
      const platform = await telegram();
      return { ...platform, method: 'sendDocument', seen: () => platform.double.uploads.length };
    },
    send: (channel, to, progress) => channel.sendFile(to, FILE, progress),
  },
  {
    name: 'telegram: an approval request (sendMessage)',
    stream: 'approval:ap-late-1',
    async open() {
      const platform = await telegram();
      return { ...platform, method: 'sendMessage', seen: () => platform.double.visibleMessages(7301).filter((message) => message.text?.includes('delete_everything')).length };
    },
    send: (channel, to, progress) => channel.sendApprovalPrompt!(to, PROMPT, progress),
  },
  {
    name: 'slack: a file (files.completeUploadExternal)',
    stream: 'file:0',
    async open() {
      const platform = await slack();
      return {
        ...platform,
        method: 'files.completeUploadExternal',
        lookups: () => platform.double.callsOf('files.info').length,
        seen: () => platform.double.uploads.filter((upload) => upload.channel === 'D0LATE01').length,
      };
    },
    send: (channel, to, progress) => channel.sendFile(to, FILE, progress),
  },
  {
    name: 'slack: an approval request (chat.postMessage)',
    stream: 'approval:ap-late-1',
    async open() {
      const platform = await slack();
      return {
        ...platform,
        method: 'chat.postMessage',
        lookups: () => platform.double.callsOf('conversations.history').length + platform.double.callsOf('conversations.replies').length,
        seen: () => platform.double.messagesIn('D0LATE01').filter((message) => !message.deleted).length,
      };
    },
    send: (channel, to, progress) => channel.sendApprovalPrompt!(to, PROMPT, progress),
  },
];

describe.concurrent('fault: a file or an approval request on its way when its turn is taken over lands after the takeover looked', () => {
  for (const scenario of cases) {
    it(`${scenario.name}: the takeover waits for the send’s deadline, finds the late part and sends nothing more`, async () => {
      const platform = await scenario.open();
      try {
        const first = await heldTurn('worker-stalled');
        const resolutions: DoubtResolution[] = [];
        const records = new DeliveryRecords(turnState, (_channel, resolution) => resolutions.push(resolution));
        // the first holder's call is on its way (held by the platform) when its worker stalls
        const held = platform.hold(platform.method);
        const stalled = scenario.send(platform.channel, platform.to, records.progress({ lease: first, stream: scenario.stream, channel: platform.to.channel })).catch((error: unknown) => error);
        await held.arrived;
        const intentAt = Date.now();
        // another worker takes the turn over: the stalled holder can no longer write to the record
        const takeover = { ...first, holder: 'worker-takeover/token' };
        await take(takeover);
        const progress = await records.resume(takeover, scenario.stream, platform.to.channel);
        expect(progress.inDoubt?.part).toBe(0);
        const settling = scenario.send(platform.channel, platform.to, progress);
        // the takeover looked and did not find it; only then does the stalled call reach the chat
        await waitFor(() => platform.lookups() > 0, { timeoutMs: 10_000, what: 'the takeover looking for the part in doubt' });
        expect(platform.seen()).toBe(0);
        held.release();
        await settling;
        await stalled;
        expect(platform.seen()).toBe(1);
        expect(resolutions).toEqual(['found']);
        // the intent recorded the deadline: its dispatch window and the call's own timeout past it
        expect(progress.inDoubt!.deadline! - progress.inDoubt!.at).toBeGreaterThan(SEND_DISPATCH_WINDOW_MS);
        // it looked again only once the deadline (with the call's own timeout in it) and the margin had passed
        expect(Date.now() - intentAt).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS + SEND_LANDING_MARGIN_MS);
      } finally {
        await platform.close();
      }
    }, 30_000);
  }
});
