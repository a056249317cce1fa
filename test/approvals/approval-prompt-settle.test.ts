import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileTools } from '../../src/agent/tools/file-tools.js';
import { ApprovalRecords, createApprovalAnswerHandler, createApprovalGate } from '../../src/approvals/index.js';
import type { ApprovalPrompt, ApprovalSink } from '../../src/core/approval.js';
import type { Channel } from '../../src/core/channel.js';
import { ChannelRegistry } from '../../src/core/channel-registry.js';
import type { ConversationRef, InboundMessage } from '../../src/core/inbound-message.js';
import { createLogger } from '../../src/observability/logger.js';
import { KeySpace, SessionQueue } from '../../src/redis/index.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

const logger = createLogger({ level: 'silent' });
const redis = new Redis(TEST_REDIS_URL);
const prefix = uniqueName('approval-settle');
const keys = new KeySpace(prefix, 1, false);
const records = new ApprovalRecords(redis, keys);
const sessions = new SessionQueue(redis, keys, { groupMaxConcurrent: 3, leaseMs: 30_000, debounceMs: 0, albumWaitMs: 0, modeOf: () => 'collect' });
const writeFile = createFileTools()[1]!;
const conversation: ConversationRef = { channel: 'telegram', accountId: 'bot', chatId: '4242', chatType: 'dm', messageId: '7' };

afterAll(async () => {
  const stored = [...(await redis.keys(`{${prefix}:*`)), ...(await redis.keys(`${prefix}:*`))];
  if (stored.length) await redis.del(...stored);
  await redis.quit();
});

/** A chat where the prompt's post can be interleaved with a click, recording every settle of a prompt. */
function chatWithButtons(duringPost?: () => Promise<void>) {
  const settled: Array<{ messageId: string; outcome: string }> = [];
  const channel = {
    name: 'telegram',
    accountId: 'bot',
    async sendApprovalPrompt(_to: ConversationRef, _prompt: ApprovalPrompt) {
      // the prompt is in the chat (the user sees its buttons) before the service learns its id
      await duringPost?.();
      return '900';
    },
    async settleApprovalPrompt(_to: ConversationRef, messageId: string, _prompt: ApprovalPrompt, outcome: string) {
      settled.push({ messageId, outcome });
    },
  } as unknown as Channel;
  const channels = new ChannelRegistry();
  channels.add(channel);
  return { channels, settled };
}

function gateFor(channels: ChannelRegistry, turnId: string) {
  const latest: InboundMessage = { conversation, dedupeKey: `telegram:bot:4242:${turnId}`, sender: { id: '4242' }, text: 'please note milk', sentAt: Date.now(), addressed: true, agentId: 'main' };
  return createApprovalGate({
    records,
    channels,
    sessionKey: `agent:main:telegram:bot:dm:4242:${turnId}`,
    turnId,
    latest,
    patterns: ['write_file'],
    timeoutMs: 60_000,
    clock: Date.now,
    logger,
    promptProgress: async () => ({ delivered: [] }) as never,
  });
}

const call = { type: 'tool-call' as const, id: 'call-1', name: 'write_file', arguments: '{"path":"notes.txt","content":"milk"}' };

describe('an approval prompt shows the decision once, however close the click follows its post', () => {
  it('a click that lands before the prompt id is stored: the turn that posted it settles it', async () => {
    const turnId = uniqueName('turn');
    let answer: ApprovalSink | undefined;
    let clicked: Awaited<ReturnType<ApprovalSink>> | undefined;
    const chat = chatWithButtons(async () => {
      clicked = await answer!({ approvalId: (await records.ofTurn(`agent:main:telegram:bot:dm:4242:${turnId}`, turnId))[0]!.id, choice: 'deny', userId: '4242', userName: 'Ana' });
    });
    answer = createApprovalAnswerHandler({ records, sessions, channels: chat.channels, logger });
    const verdict = await gateFor(chat.channels, turnId).check(call, writeFile);
    expect(clicked).toEqual({ kind: 'accepted', text: 'Denied by Ana.' });
    expect(verdict.kind).toBe('wait');
    expect(chat.settled).toEqual([{ messageId: '900', outcome: 'Denied by Ana.' }]);
  });

  it('a click after the prompt id is stored: the gateway that took the click settles it, the turn does not', async () => {
    const turnId = uniqueName('turn');
    const chat = chatWithButtons();
    const answer = createApprovalAnswerHandler({ records, sessions, channels: chat.channels, logger });
    expect((await gateFor(chat.channels, turnId).check(call, writeFile)).kind).toBe('wait');
    expect(chat.settled).toEqual([]);
    const [record] = await records.ofTurn(`agent:main:telegram:bot:dm:4242:${turnId}`, turnId);
    expect(await answer({ approvalId: record!.id, choice: 'once', userId: '4242', userName: 'Ana' })).toEqual({ kind: 'accepted', text: 'Allowed once by Ana.' });
    expect(chat.settled).toEqual([{ messageId: '900', outcome: 'Allowed once by Ana.' }]);
    expect((await records.get(record!.id))?.outcome).toBe('Allowed once by Ana.');
  });
});
