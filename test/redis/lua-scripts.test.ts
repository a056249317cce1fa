import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LuaScripts } from '../../src/redis/lua-scripts.js';
import { luaSource } from '../../src/redis/lua-source.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { deleteTestKeys, testRedisTarget, uniqueName } from '../support/services.js';

const target = testRedisTarget();
const redis = createRedisClient(target, 'worker');
const prefix = uniqueName('lua-scripts');
const key = `{${prefix}}:mark`;
const scripts = new LuaScripts(redis, { 'raise-mark': 1 });
const sha = createHash('sha1').update(luaSource('raise-mark')).digest('hex');

afterAll(async () => {
  await deleteTestKeys(redis, `{${prefix}*`);
  await redis.quit();
});

describe('LuaScripts', () => {
  it('runs a script Redis does not know yet (EVAL loads it), then by its SHA', async () => {
    await redis.script('FLUSH');
    await scripts.run('raise-mark', [key], [5, 60]);
    expect(await redis.get(key)).toBe('5');
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
    await scripts.run('raise-mark', [key], [9, 60]);
    expect(await redis.get(key)).toBe('9');
  });

  it('defines no ioredis commands: an auto-pipelined batch copies every defined command of its connection', () => {
    expect(Object.keys((redis as unknown as { scriptsSet: Record<string, unknown> }).scriptsSet)).toEqual([]);
  });

  it('refuses a wrong number of keys before sending anything', () => {
    expect(() => scripts.run('raise-mark', [key, `${key}:2`], [1, 60])).toThrow('script raise-mark takes 1 keys, got 2');
  });
});
