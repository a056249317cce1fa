import { Cluster } from 'ioredis';
import type { RedisClient } from './redis-client.js';

/** Every key matching `pattern` (SCAN, never KEYS): on a cluster, on each master. For rare listings only. */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, found] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys;
}
