import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BotError } from '../core/errors.js';
import { currentProcess, isRunning } from './process-identity.js';

/**
 * One process per data folder: whoever runs on the embedded database (PGlite) or the embedded redis-server
 * holds `DATA_DIR/service.lock` while it does, naming itself (pid and start time) and, once it serves HTTP,
 * where. A lock whose process is gone (killed, crashed, the machine restarted) is stale and taken over.
 */
export const DATA_DIR_LOCK_FILE = 'service.lock';

export interface LockHolder {
  pid: number;
  startTime: string | undefined;
  /** What it runs: `start`, `migrate`, `pairing`, `doctor`. */
  command: string;
  since: string;
  /** Where its HTTP server answers (`/healthz`, `/readyz`), once it does. */
  url?: string;
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Adds where the holder's HTTP server answers, for `doctor` and for the message a second process prints. */
  announce(url: string): void;
  release(): void;
}

/** A second process in a data folder that is in use; its message is one line naming the holder. */
export class DataDirInUseError extends BotError {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    message = `DATA_DIR ${dataDir} is in use by ${describeHolder(holder)}: one process per data folder; stop that one first, or give this one another DATA_DIR`,
  ) {
    super('config', message);
    this.name = 'DataDirInUseError';
  }
}

export function describeHolder(holder: LockHolder): string {
  return `process ${holder.pid} (chatbot ${holder.command}, since ${holder.since}${holder.url ? `, ${holder.url}` : ''})`;
}

/** Takes the lock or throws DataDirInUseError; released by `release()` or, whatever else happens, when this process exits. */
export function acquireDataDirLock(dataDir: string, command: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  const me = currentProcess();
  let record: LockHolder = { pid: me.pid, startTime: me.startTime, command, since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    if (writeExclusive(path, record)) break;
    const holder = readHolder(path);
    if (holder && isRunning(holder)) throw new DataDirInUseError(dataDir, holder);
    if (attempt >= 5) throw new BotError('config', `DATA_DIR ${dataDir}: could not take ${DATA_DIR_LOCK_FILE} (other processes keep changing it)`);
    removeStale(path, holder);
  }
  const ours = () => {
    const holder = readHolder(path);
    return holder?.pid === me.pid && holder.startTime === me.startTime;
  };
  const release = () => {
    process.off('exit', release);
    if (ours()) rmSync(path, { force: true });
  };
  process.on('exit', release);
  return {
    dataDir,
    announce: (url) => {
      if (!ours()) return;
      record = { ...record, url };
      // written beside it, then renamed over it: a reader sees the old record or the new one, never half of one
      const next = `${path}.${process.pid}.tmp`;
      writeFileSync(next, JSON.stringify(record));
      renameSync(next, path);
    },
    release,
  };
}

/** The live process holding the data folder, if any (a stale lock counts as none). */
export function dataDirHolder(dataDir: string): LockHolder | undefined {
  const holder = readHolder(join(dataDir, DATA_DIR_LOCK_FILE));
  return holder && isRunning(holder) ? holder : undefined;
}

/** The record appears complete or not at all: written to a file of its own, then hard-linked into place (fails if taken). */
function writeExclusive(path: string, record: LockHolder): boolean {
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, JSON.stringify(record));
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (!Number.isInteger(parsed.pid)) return undefined;
    return { pid: parsed.pid!, startTime: parsed.startTime ?? undefined, command: parsed.command ?? 'start', since: parsed.since ?? '?', url: parsed.url };
  } catch {
    return undefined;
  }
}

/**
 * Moves the stale lock aside (atomic: of two processes doing this, one gets it), then checks that what it
 * moved is the stale record it judged: if another process had meanwhile taken the lock, its record goes back.
 */
function removeStale(path: string, judged: LockHolder | undefined): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // gone already: someone else is at it
  }
  const moved = readHolder(aside);
  const same = moved?.pid === judged?.pid && moved?.startTime === judged?.startTime && moved?.since === judged?.since;
  if (!same) {
    try {
      linkSync(aside, path);
    } catch {
      // a third process took the lock in between: it holds it, and this one will see that next
    }
  }
  rmSync(aside, { force: true });
}
