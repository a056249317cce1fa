import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaCache, mediaCacheKey, type MediaCache } from '../../src/media/index.js';
import { createLogger } from '../../src/observability/logger.js';

/** The download cache on a real folder: what one process keeps, another on the same DATA_DIR reads; bounded by age and size. */
let directory: string;
const logger = createLogger({ level: 'silent' });
const cacheAt = (now: () => number, maxBytes = 1_000): MediaCache => createMediaCache({ directory, maxBytes, maxAgeMs: 600_000, logger, clock: now });
const key = (ref: string) => mediaCacheKey('telegram', '1', ref);
const age = (ref: string, secondsAgo: number) => {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(directory, key(ref)), when, when);
};

beforeEach(() => {
  directory = join(mkdtempSync(join(tmpdir(), 'media-cache-')), 'media-cache');
});
afterEach(() => rmSync(join(directory, '..'), { recursive: true, force: true }));

describe('media cache', () => {
  it('keys a file by channel, account and reference', () => {
    expect(key('a')).toMatch(/^[0-9a-f]{64}$/);
    expect(key('a')).toBe(mediaCacheKey('telegram', '1', 'a'));
    expect(mediaCacheKey('telegram', '2', 'a')).not.toBe(key('a'));
    expect(mediaCacheKey('slack', '1', 'a')).not.toBe(key('a'));
  });

  it('what one process wrote, another reading the same folder finds; nothing half-written is left', async () => {
    await cacheAt(Date.now).write(key('a'), Buffer.from('photo bytes'));
    const other = cacheAt(Date.now);
    expect((await other.read(key('a'), 1_000))?.toString()).toBe('photo bytes');
    expect(await other.read(key('b'), 1_000)).toBeUndefined();
    // over the reader's size limit: not used (the download path decides)
    expect(await other.read(key('a'), 5)).toBeUndefined();
    expect(readdirSync(directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('never reads an entry older than its age bound, and the sweep removes it', async () => {
    const cache = cacheAt(Date.now);
    await cache.write(key('old'), Buffer.from('old'));
    await cache.write(key('new'), Buffer.from('new'));
    age('old', 1_200);
    expect(await cache.read(key('old'), 1_000)).toBeUndefined();
    await cache.sweep();
    expect(existsSync(join(directory, key('old')))).toBe(false);
    expect(existsSync(join(directory, key('new')))).toBe(true);
  });

  it('keeps the folder under its bound, the oldest entries going first; a file over the bound is not kept', async () => {
    const cache = cacheAt(Date.now, 1_000);
    for (const [index, ref] of ['a', 'b', 'c'].entries()) {
      await cache.write(key(ref), Buffer.alloc(400, ref));
      age(ref, 30 - index * 10);
    }
    await cache.write(key('huge'), Buffer.alloc(1_001));
    await cache.sweep();
    expect(existsSync(join(directory, key('a')))).toBe(false);
    expect(existsSync(join(directory, key('b')))).toBe(true);
    expect(existsSync(join(directory, key('c')))).toBe(true);
    expect(existsSync(join(directory, key('huge')))).toBe(false);
  });

  it('a write sweeps by itself (at most once a minute), and removes temporary files a dead writer left', async () => {
    let shift = 0;
    const cache = cacheAt(() => Date.now() + shift, 500);
    await cache.write(key('a'), Buffer.alloc(400));
    const stale = join(directory, `.${key('x')}.dead.tmp`);
    writeFileSync(stale, 'half');
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(stale, past, past);
    age('a', 10);
    await cache.write(key('b'), Buffer.alloc(400));
    // within the process's first minute: no sweep yet
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(directory, key('a')))).toBe(true);
    shift = 61_000;
    await cache.write(key('c'), Buffer.alloc(100));
    await waitUntil(() => !existsSync(join(directory, key('a'))) && !existsSync(stale));
    expect(existsSync(join(directory, key('b')))).toBe(true);
    expect(existsSync(join(directory, key('c')))).toBe(true);
  });

  it('a folder it cannot write costs a download, never an error', async () => {
    writeFileSync(join(directory, '..', 'blocked'), 'a file, not a folder');
    const blocked = createMediaCache({ directory: join(directory, '..', 'blocked', 'cache'), maxBytes: 1_000, maxAgeMs: 60_000, logger });
    await expect(blocked.write(key('a'), Buffer.from('x'))).resolves.toBeUndefined();
    expect(await blocked.read(key('a'), 1_000)).toBeUndefined();
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
