import { afterAll, describe, expect, it } from 'vitest';
import { KeySpace, RedisChannelState } from '../../src/redis/index.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefix = uniqueName('channel-state');
const keys = new KeySpace(prefix, 1, target.cluster);
const state = new RedisChannelState(redis, keys);

afterAll(async () => {
  await deleteTestKeys(redis, `{${prefix}*`);
  await redis.quit();
});

describe('shared sightings (RedisChannelState.note / noted)', () => {
  it('keeps one sighting per number and tag, returns a range lowest first, and forgets numbers far below the newest', async () => {
    await state.note('seen', [{ value: 12, tag: 'in' }, { value: 10, tag: '4801' }, { value: 11, tag: '4802' }], 100, 60);
    // another process saw the same message: one entry
    await state.note('seen', [{ value: 10, tag: '4801' }], 100, 60);
    expect(await state.noted('seen', 10, 11, 10)).toEqual([
      { value: 10, tag: '4801' },
      { value: 11, tag: '4802' },
    ]);
    expect(await state.noted('seen', 0, 1_000, 2)).toHaveLength(2);
    // 150 is noted: what lies more than 100 below it goes (a tag may hold the separator itself)
    await state.note('seen', [{ value: 60, tag: '4803' }, { value: 150, tag: 'a|b' }], 100, 60);
    expect(await state.noted('seen', 0, 1_000, 10)).toEqual([
      { value: 60, tag: '4803' },
      { value: 150, tag: 'a|b' },
    ]);
    expect(await redis.ttl(keys.channelState('seen'))).toBeGreaterThan(0);
  });

  it('noting nothing writes nothing', async () => {
    await state.note('empty', [], 100, 60);
    expect(await redis.exists(keys.channelState('empty'))).toBe(0);
  });
});

describe('shared notes (RedisChannelState.keepText / textOf / claim)', () => {
  it('keeps a text for its time, replaced by the next one; nothing kept reads as undefined', async () => {
    expect(await state.textOf('note')).toBeUndefined();
    await state.keepText('note', '{"channel":"C1"}', 60);
    await state.keepText('note', '{"channel":"C2"}', 60);
    expect(await state.textOf('note')).toBe('{"channel":"C2"}');
    expect(await redis.ttl(keys.channelState('note'))).toBeGreaterThan(0);
  });

  it('a claim is granted to its first caller only, among callers at once', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => state.claim('greeted', 60)));
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await state.claim('greeted', 60)).toBe(false);
    expect(await redis.ttl(keys.channelState('greeted'))).toBeGreaterThan(0);
  });
});
