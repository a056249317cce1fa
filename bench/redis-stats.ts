import type { Redis } from 'ioredis';

/** Calls and CPU µs per Redis command, from INFO commandstats (server-wide: other clients of a shared Redis count too). */
export type CommandStats = Map<string, { calls: number; usec: number }>;

/** Summed over the given servers (the masters of a cluster, or one Redis). */
export async function commandStats(servers: Redis[]): Promise<CommandStats> {
  const stats: CommandStats = new Map();
  for (const text of await Promise.all(servers.map((server) => server.info('commandstats')))) {
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
      const previous = stats.get(match[1]!) ?? { calls: 0, usec: 0 };
      stats.set(match[1]!, { calls: previous.calls + Number(match[2]), usec: previous.usec + Number(match[3]) });
    }
  }
  return stats;
}

export interface CommandDelta {
  totalCalls: number;
  totalUsec: number;
  /** The commands with the most calls, most first. */
  top: Array<{ command: string; calls: number; usec: number }>;
}

export function commandDelta(after: CommandStats, before: CommandStats, topN = 8): CommandDelta {
  const rows: Array<{ command: string; calls: number; usec: number }> = [];
  for (const [command, value] of after) {
    const previous = before.get(command) ?? { calls: 0, usec: 0 };
    const calls = value.calls - previous.calls;
    if (calls > 0) rows.push({ command, calls, usec: value.usec - previous.usec });
  }
  rows.sort((a, b) => b.calls - a.calls);
  return {
    totalCalls: rows.reduce((sum, row) => sum + row.calls, 0),
    totalUsec: rows.reduce((sum, row) => sum + row.usec, 0),
    top: rows.slice(0, topN),
  };
}

export async function redisServerPid(redis: Redis): Promise<number | undefined> {
  const text = await redis.info('server');
  const pid = Number(/^process_id:(\d+)/m.exec(text)?.[1]);
  return Number.isFinite(pid) && pid > 0 ? pid : undefined;
}

/**
 * Deletes every key under `<prefix>:` and every key whose hash tag starts with the prefix (`{<prefix>…}…`), SCAN, never
 * KEYS: the Redis may be shared. Returns how many.
 */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return deleted;
}
