import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupContext } from '../../src/redis/group-context.js';
import { KeySpace } from '../../src/redis/key-space.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const SESSION = 'main:telegram:7:group:-100';
let prefix: string;
let keys: KeySpace;
let context: GroupContext;

const line = (text: string, sentAt: number) => ({ senderName: 'Ada', text, sentAt });

beforeEach(() => {
  prefix = uniqueName('gctx');
  keys = new KeySpace(prefix, 4, target.cluster);
  context = new GroupContext(redis, keys);
});
afterEach(async () => {
  await deleteTestKeys(redis, `{${prefix}:*`);
});
afterAll(async () => {
  await redis.quit();
});

describe('group context lines on real Redis', () => {
  it('a turn takes the lines it shows: a turn beside it sees only later ones, and nothing is dropped', async () => {
    await context.remember(SESSION, line('lunch at noon?', 1));
    await context.remember(SESSION, line('sure, pizza', 2));
    expect((await context.claim(SESSION, 'turn-a')).map((l) => l.text)).toEqual(['lunch at noon?', 'sure, pizza']);

    // a second turn of the same group starts while the first still runs: the first's lines are not shown twice
    await context.remember(SESSION, line('and dessert?', 3));
    expect((await context.claim(SESSION, 'turn-b')).map((l) => l.text)).toEqual(['and dessert?']);

    // the first turn is stored after the second started: the line the second showed is not lost to it
    await context.release(SESSION, 'turn-a');
    await context.remember(SESSION, line('tiramisu', 4));
    expect((await context.claim(SESSION, 'turn-c')).map((l) => l.text)).toEqual(['tiramisu']);
  });

  it('a retry or takeover of the same turn sees the same lines again, also when it found none', async () => {
    await context.remember(SESSION, line('first', 1));
    expect((await context.claim(SESSION, 'turn-a')).map((l) => l.text)).toEqual(['first']);
    await context.remember(SESSION, line('later', 2));
    expect((await context.claim(SESSION, 'turn-a')).map((l) => l.text)).toEqual(['first']);

    const quiet = 'main:telegram:7:group:-200';
    expect(await context.claim(quiet, 'turn-empty')).toEqual([]);
    await context.remember(quiet, line('after the empty one', 3));
    expect(await context.claim(quiet, 'turn-empty')).toEqual([]);
    expect((await context.claim(quiet, 'turn-next')).map((l) => l.text)).toEqual(['after the empty one']);

    // released: the claim is gone, with a day's expiry until then
    const claimKey = keys.session(SESSION).groupContextClaim('turn-a');
    expect(await redis.ttl(claimKey)).toBeGreaterThan(23 * 3600);
    await context.release(SESSION, 'turn-a');
    expect(await redis.exists(claimKey)).toBe(0);
  });
});
