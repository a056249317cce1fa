import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROBE_LIMITS, PROBE_WINDOW } from '../../../channels/telegram/sent-probe.js';
import { BotError, type Channel, type ConversationRef, type SharedHighMarks, type WebhookRoute } from '../../../src/core/index.js';
import { KeySpace, RedisChannelState } from '../../../src/redis/index.js';
import { createRedisClient } from '../../../src/redis/redis-client.js';
import { startTelegramDouble, type TelegramDouble } from '../../doubles/telegram-double.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../../support/services.js';
import { recordingProgress } from '../../support/recording-progress.js';
import { recordingSink, startChannel, waitFor } from './channel-fixture.js';

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
  const limits = { ...PROBE_LIMITS };
  afterEach(() => Object.assign(PROBE_LIMITS, limits));

  const probesOf = () => double.callsOf('editMessageReplyMarkup').filter((call) => call.params.reply_markup !== undefined && JSON.stringify(call.params.reply_markup).includes('delivery-probe')).length;

  /** A webhook gateway of the same bot: it sees users' messages and publishes their ids. Returns how it takes one. */
  async function startGateway() {
    const secret = 'webhook-secret-0123456789';
    const gateway = await startChannel(double, { mode: 'webhook', webhookSecret: secret, marks: new RedisChannelState(redis, new KeySpace(prefix, 1, target.cluster)) });
    const route = gateway.webhookRoutes(recordingSink().sink)[0] as WebhookRoute;
    return async (userId: number, text: string) => {
      const update = double.makeUpdate.privateText(userId, text);
      expect((await route.handle({ headers: { 'x-telegram-bot-api-secret-token': secret }, rawBody: JSON.stringify(update) })).status).toBe(200);
    };
  }

  /** A DM whose question the double numbered, and the intent bound a dead sender recorded right after it. */
  function dmAfterQuestion(userId: number) {
    const question = double.makeUpdate.privateText(userId, 'tell me');
    const dm: ConversationRef = { channel: 'telegram', accountId: String(double.botId), chatId: String(userId), chatType: 'dm', messageId: String(question.message!.message_id) };
    const bound = Number(dm.messageId);
    return { dm, inDoubt: () => recordingProgress({ delivered: [], inDoubt: { part: 0, hint: { after: bound, afterAny: bound }, at: Date.now() } }) };
  }

  /** The test's shared marks in Redis, with some of their calls replaced (a connection that fails, publishing held back). */
  function sharedMarks(replaced: Partial<SharedHighMarks> = {}): SharedHighMarks {
    const marks = new RedisChannelState(redis, new KeySpace(prefix, 1, target.cluster));
    return {
      raise: (key, value, ttl) => marks.raise(key, value, ttl),
      read: (key) => marks.read(key),
      note: (key, sightings, keep, ttl) => marks.note(key, sightings, keep, ttl),
      noted: (key, from, through, limit) => marks.noted(key, from, through, limit),
      ...replaced,
    };
  }

  /** Ids are published at most once a second. */
  const published = () => new Promise((resolve) => setTimeout(resolve, 1_300));

  it("skips the ids any process saw taken by other chats and by users, but tries those of the part's own chat: a part 300 ids past its bound is found in a few probes", async () => {
    const receive = await startGateway();
    const { dm, inDoubt } = dmAfterQuestion(4801);
    // between the intent's bound and the part: other chats' answers (the busy process saw them) and users'
    // messages (the gateway saw them), and an earlier answer in the part's own chat
    for (let other = 0; other < 150; other += 1) {
      await busy.send({ ...dm, chatId: String(7100 + other), messageId: '0' }, `busy ${other}`);
      await receive(8300 + other, `meanwhile ${other}`);
    }
    await busy.send(dm, 'An earlier answer.', recordingProgress());
    await busy.send(dm, 'The short answer.', recordingProgress());
    // the busy sender saw its part too, tagged with the part's chat
    await published();

    PROBE_LIMITS.maxIds = 20;
    const before = probesOf();
    const retry = inDoubt();
    await fresh.send(dm, 'The short answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    // the earlier answer, then the part: the 300 ids of other chats and users are not tried
    expect(probesOf() - before).toBeLessThanOrEqual(PROBE_WINDOW);
    expect(double.visibleMessages(4801).map((message) => message.text)).toEqual(['An earlier answer.', 'The short answer.']);
  });

  it('a process that has seen nothing of the counter finds a part sent far past its intent, from what the others published', async () => {
    const { dm, inDoubt } = dmAfterQuestion(4601);
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) await busy.send({ ...dm, chatId: String(7000 + other), messageId: '0' }, `busy ${other}`);
    await busy.send(dm, 'The short answer.', recordingProgress());
    await published();

    const retry = inDoubt();
    await fresh.send(dm, 'The short answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4601).map((message) => message.text)).toEqual(['The short answer.']);
  });

  it('a part whose sender died before publishing anything is still reached: the gateway publishes the ids of users\' messages', async () => {
    const receive = await startGateway();
    const { dm, inDoubt } = dmAfterQuestion(4701);
    // the sender's part took an id far past its intent's bound, and the sender died before publishing any id
    // (it has no shared marks here); meanwhile the gateway took users' messages, which share the counter
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) double.makeUpdate.privateText(8100 + other, `meanwhile ${other}`);
    const sender = await startChannel(double);
    await sender.send(dm, 'The late answer.', recordingProgress());
    for (let other = 0; other < 5; other += 1) await receive(8200 + other, `after ${other}`);
    await published();

    const retry = inDoubt();
    await fresh.send(dm, 'The late answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4701).map((message) => message.text)).toEqual(['The late answer.']);
  });

  it('a search that cannot read what the other processes saw fails, and the retry finds the part: it never answers "not sent" from its own ids alone', async () => {
    const { dm, inDoubt } = dmAfterQuestion(4901);
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) await busy.send({ ...dm, chatId: String(7200 + other), messageId: '0' }, `busy ${other}`);
    await busy.send(dm, 'The short answer.', recordingProgress());
    await published();

    // a process whose Redis connection is down (a producer connection fails at once)
    const unreadable = sharedMarks({ read: () => Promise.reject(new Error("Stream isn't writeable and enableOfflineQueue options is false")) });
    const cutOff = await startChannel(double, { marks: unreadable });
    const first = inDoubt();
    // retryable, so the turn is tried again rather than stored as undeliverable
    const failure = await cutOff.send(dm, 'The short answer.', first).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(BotError);
    expect(failure).toMatchObject({ isRetryable: true, message: expect.stringMatching(/could not be read from Redis/) });
    expect(first.resolutions).toEqual([]);

    const retry = inDoubt();
    await fresh.send(dm, 'The short answer.', retry);
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(4901).map((message) => message.text)).toEqual(['The short answer.']);
  });

  it('a part whose sender had not published its id when the search began is found: the search waits for the others to publish and looks once more', async () => {
    // the busy process's publishing is held back until the search has looked as far as the old mark lets it
    const shared = sharedMarks();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = sharedMarks({
      raise: (key, value, ttl) => gate.then(() => shared.raise(key, value, ttl)),
      note: (key, sightings, keep, ttl) => gate.then(() => shared.note(key, sightings, keep, ttl)),
    });
    const slow = await startChannel(double, { marks: held });
    const { dm, inDoubt } = dmAfterQuestion(5001);
    for (let other = 0; other < PROBE_WINDOW * 3; other += 1) await slow.send({ ...dm, chatId: String(7300 + other), messageId: '0' }, `slow ${other}`);
    await slow.send(dm, 'The late answer.', recordingProgress());

    const before = probesOf();
    const retry = inDoubt();
    const settling = fresh.send(dm, 'The late answer.', retry);
    // the first look ends at the bound plus the window, well short of the part
    await waitFor(() => probesOf() - before >= PROBE_WINDOW);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(retry.resolutions).toEqual([]);
    open();
    await settling;
    expect(retry.resolutions).toEqual(['found']);
    expect(double.visibleMessages(5001).map((message) => message.text)).toEqual(['The late answer.']);
  });
});
