import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../observability/logger.js';

/**
 * The files a turn downloaded, kept on this machine so that a retry of the turn (a failed model call, a crash
 * taken over by another worker process, an approval answered later) reads them from disk instead of asking the
 * platform again. One file per attachment under `DATA_DIR/media-cache/`, named by the SHA-256 of the channel,
 * account and the platform's reference, so every process sharing the DATA_DIR finds it; a worker on another
 * machine simply downloads again. Written to a temporary name and renamed (a reader never sees half a file).
 *
 * Bounded: entries older than `maxAgeMs` are never read and are removed, and when the folder holds more than
 * `maxBytes` the oldest entries go first. The sweep runs after a write, at most once a minute per process.
 */
export interface MediaCache {
  /** The bytes fetched before, if this machine still has them (and they are at most `maxBytes`). */
  read(key: string, maxBytes: number): Promise<Buffer | undefined>;
  write(key: string, bytes: Buffer): Promise<void>;
  /** Removes expired entries and keeps the bound now (a write does this by itself at most once a minute). */
  sweep(): Promise<void>;
}

export interface MediaCacheOptions {
  directory: string;
  /** MEDIA_CACHE_MAX_BYTES: the folder's bound. */
  maxBytes: number;
  maxAgeMs: number;
  logger: Logger;
  clock?: () => number;
}

/** A day: longer than any retry, takeover or approval wait (10 minutes by default) of a turn. */
export const MEDIA_CACHE_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60_000;
/** A temporary file this old was left by a process that died while writing. */
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

/** The cache's name for one attachment: the same in every process, for the same file of the same bot account. */
export function mediaCacheKey(channel: string, accountId: string, ref: string): string {
  return createHash('sha256').update(`${channel}\u0000${accountId}\u0000${ref}`).digest('hex');
}

export function createMediaCache(options: MediaCacheOptions): MediaCache {
  const { directory, maxBytes, maxAgeMs, logger } = options;
  const clock = options.clock ?? Date.now;
  // the first sweep of a process comes a minute after it starts: nothing in the folder is urgent
  let lastSweep = clock();
  let sweeping: Promise<void> | undefined;

  const sweepSoon = (): void => {
    if (sweeping || clock() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = clock();
    sweeping = sweep(directory, maxBytes, maxAgeMs, clock())
      .catch((error: unknown) => logger.warn({ err: error, directory }, 'media cache: the sweep failed'))
      .finally(() => (sweeping = undefined));
  };

  return {
    async read(key, limit) {
      try {
        const path = join(directory, key);
        const info = await stat(path);
        if (clock() - info.mtimeMs > maxAgeMs || info.size > limit) return undefined;
        return await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err: error, key }, 'media cache: could not read an entry; downloading again');
        return undefined;
      }
    },
    async write(key, bytes) {
      if (bytes.length > maxBytes) return;
      const temporary = join(directory, `.${key}.${randomUUID()}.tmp`);
      try {
        await mkdir(directory, { recursive: true });
        await writeFile(temporary, bytes);
        await rename(temporary, join(directory, key));
      } catch (error) {
        // a full disk or a read-only folder costs a download on retry, never the turn
        logger.warn({ err: error, key }, 'media cache: could not keep a download');
        await rm(temporary, { force: true }).catch(() => undefined);
        return;
      }
      sweepSoon();
    },
    async sweep() {
      await sweeping;
      lastSweep = clock();
      await sweep(directory, maxBytes, maxAgeMs, clock());
    },
  };
}

/** Removes expired entries and left-over temporary files, then the oldest entries while over the bound. */
async function sweep(directory: string, maxBytes: number, maxAgeMs: number, now: number): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  const entries: Array<{ path: string; size: number; modified: number }> = [];
  for (const name of names) {
    const path = join(directory, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    const temporary = name.endsWith('.tmp');
    if (now - info.mtimeMs > (temporary ? STALE_TEMPORARY_MS : maxAgeMs)) await rm(path, { force: true });
    else if (!temporary) entries.push({ path, size: info.size, modified: info.mtimeMs });
  }
  let total = entries.reduce((sum, entry) => sum + entry.size, 0);
  for (const entry of entries.sort((a, b) => a.modified - b.modified)) {
    if (total <= maxBytes) break;
    await rm(entry.path, { force: true });
    total -= entry.size;
  }
}
