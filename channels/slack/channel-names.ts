import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../src/observability/logger.js';

/** A webhook must answer fast: a name that takes longer is left out this time and used once it arrives. */
const LOOKUP_BUDGET_MS = 300;
const FOUND_TTL_MS = 60 * 60 * 1000;
const MISSING_TTL_MS = 10 * 60 * 1000;
const MAX_ENTRIES = 5000;

type Entry = { name: Promise<string | undefined>; expiresAt: number };

/** Channel names for the prompt (`conversations.info`), cached per process; undefined when unknown or slow. */
export function createChannelNames(client: WebClient, logger: Logger): (channel: string) => Promise<string | undefined> {
  const cache = new Map<string, Entry>();

  function lookup(channel: string): Entry {
    const entry: Entry = { name: Promise.resolve(undefined), expiresAt: Date.now() + FOUND_TTL_MS };
    entry.name = client.conversations.info({ channel }).then(
      (result) => result.channel?.name,
      (error: unknown) => {
        entry.expiresAt = Date.now() + MISSING_TTL_MS;
        logger.debug({ channel, error: String(error) }, 'slack channel name lookup failed');
        return undefined;
      },
    );
    return entry;
  }

  return async (channel) => {
    let entry = cache.get(channel);
    if (entry === undefined || entry.expiresAt < Date.now()) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      entry = lookup(channel);
      cache.set(channel, entry);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), LOOKUP_BUDGET_MS);
    });
    try {
      return await Promise.race([entry.name, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
