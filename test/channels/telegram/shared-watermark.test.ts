import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_WINDOW } from '../../../channels/telegram/sent-probe.js';
import type { Channel, ConversationRef } from '../../../src/core/index.js';
import { KeySpace, RedisChannelState } from '../../../src/redis/index.js';
import { createRedisClient } from '../../../src/redis/redis-client.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../../support/services.js';
import { recordingProgress } from '../../support/recording-progress.js';
import { startChannel } from './channel-fixture.js';

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');

// Two processes of one bot: the one that sent (and died) and a freshly started one that takes its turn over.
describe('telegram: the highest message id shared between processes', () => {
  let double: TelegramDouble;
  let prefix: string;
  let busy: Channel;
  let fresh: Channel;

  beforeEach(async () => {
    double = await startTelegramDouble();
    prefix = uniqueName('marks');
    const marks = new RedisChannelState(redis, new KeySpace(prefix, 1, target.cluster));
    busy = await startChannel(double, { marks });
    fresh = await startChannel(double, { marks });
  });
  afterEach(async () => {
    await double.close();
    await deleteTestKeys(redis, `{${prefix}*`);
    await deleteTestKeys(redis, `${prefix}:*`);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('a process that has seen nothing of the counter finds a part sent far past its intent, from what the others published', async () => {
    const question = double.makeUpdate.privateText(4601, 'tell me');
    const dm: ConversationRef = { channel: 'telegram', accountId: String(double.botId), chatId: '4601', chatType: 'dm', messageId: String(question.message!.message_id) };
    const bound = Number(dm.messageId);
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) await busy.send({ ...dm, chatId: String(7000 + other), messageId: '0' }, `busy ${other}`);
    await busy.send(dm, 'The short answer.', recordingProgress());
    // published at most once a second
    await new Promise((resolve) => setTimeout(resolve, 1_300));

    const retry = recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: bound, afterAny: bound }, at: Date.now() } });
    await fresh.send(dm, 'The short answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4601).map((message) => message.text)).toEqual(['The short answer.']);
  });
});
