import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, ConversationRef, InboundMessage } from '../../src/core/index.js';
import { openLiveDraft } from '../../src/turn/live-draft.js';
import type { TurnDependencies } from '../../src/turn/turn-dependencies.js';
import { startFeishuDouble, type FeishuDouble } from '../doubles/feishu-double.js';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';
import { startChannel as startFeishuChannel } from '../channels/feishu/channel-fixture.js';
import { startChannel as startTelegramChannel, waitFor } from '../channels/telegram/channel-fixture.js';

/**
 * NO_REPLY is decided in one place: the turn's live draft holds the draft back while the answer so far may
 * still become a silent reply, so no channel shows `NO_…` (the channels no longer check for it themselves).
 */
const INTERVAL_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deps = { settings: { liveReplies: 'all' } } as unknown as TurnDependencies;
const SILENT_SO_FAR = ['N', 'NO_', '"NO_REP', 'NO_REPLY', 'NO_REPLY: nobody asked me', ' NO_REPLY.', '**NO_RE'];

interface Platform {
  channel: Channel;
  to: ConversationRef;
  /** Every call that would put something in the chat. */
  shown(): number;
  close(): Promise<void>;
}

async function telegram(): Promise<Platform> {
  const double: TelegramDouble = await startTelegramDouble();
  const channel = await startTelegramChannel(double, { liveEditIntervalMs: INTERVAL_MS });
  return {
    channel,
    to: { channel: 'telegram', accountId: '123456789', chatId: '777', chatType: 'dm', messageId: '1' },
    shown: () => double.calls.filter((call) => call.method !== 'getMe').length,
    close: async () => double.close(),
  };
}

async function feishu(): Promise<Platform> {
  const double: FeishuDouble = await startFeishuDouble();
  const channel = await startFeishuChannel(double, { liveEditIntervalMs: INTERVAL_MS });
  return {
    channel,
    to: { channel: 'feishu', accountId: double.appId, chatId: 'oc_p2p_chat', chatType: 'dm', messageId: 'om_question' },
    shown: () => double.calls.filter((call) => call.path.includes('/im/v1/messages')).length,
    close: async () => double.close(),
  };
}

/** Streams `text` one character at a time into a live draft, the clock far enough on for every prefix to be refreshed. */
async function streamDraft(platform: Platform, text: string) {
  let now = 0;
  const latest = { conversation: platform.to } as InboundMessage;
  const draft = openLiveDraft(deps, platform.channel, latest, () => now);
  if (!draft) throw new Error('no live draft');
  for (const character of text) {
    draft.onEvent({ type: 'text-delta', text: character });
    now += 1000;
    await sleep(5);
  }
  await sleep(INTERVAL_MS * 3);
  return draft.reply;
}

describe.each([
  ['telegram', telegram],
  ['feishu', feishu],
])('%s live draft and NO_REPLY', (_name, start) => {
  let platform: Platform;
  afterEach(() => platform.close());

  it('shows nothing while the answer may still be NO_REPLY, and a silent reply leaves nothing behind', async () => {
    platform = await start();
    for (const text of SILENT_SO_FAR) {
      const reply = await streamDraft(platform, text);
      expect(reply.started).toBe(false);
      await reply.discardUnlessFinished();
    }
    expect(platform.shown()).toBe(0);
  });

  it('shows the draft once the answer can no longer be NO_REPLY', async () => {
    platform = await start();
    const reply = await streamDraft(platform, 'NO problem, here is the answer');
    await waitFor(() => platform.shown() > 0);
    expect(reply.started).toBe(true);
    await reply.discardUnlessFinished();
  });
});
