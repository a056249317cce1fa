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
