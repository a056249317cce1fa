import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DATA_DIR_LOCK_FILE, DataDirInUseError, dataDirHolder } from '../../src/lifecycle/data-dir-lock.js';
import { currentProcess } from '../../src/lifecycle/process-identity.js';

let dataDir: string;
const lockFile = () => join(dataDir, DATA_DIR_LOCK_FILE);
const record = (fields: Record<string, unknown>) => writeFileSync(lockFile(), JSON.stringify({ command: 'start', since: '2026-01-01T00:00:00.000Z', ...fields }));

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the data folder lock', () => {
  it('names its holder, refuses a second taker with a one-line message naming the holder, and is free again once released', () => {
    const lock = acquireDataDirLock(dataDir, 'start');
    lock.announce('http://127.0.0.1:8080');
    const me = currentProcess();
    expect(dataDirHolder(dataDir)).toMatchObject({ pid: me.pid, startTime: me.startTime, command: 'start', url: 'http://127.0.0.1:8080' });

    let refusal: unknown;
    try {
      acquireDataDirLock(dataDir, 'migrate');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^DATA_DIR ${dataDir} is in use by process ${me.pid} \\(chatbot start, since \\S+, http://127\\.0\\.0\\.1:8080\\): one process per data folder; stop that one first, or give this one another DATA_DIR$`),
    );

    lock.release();
    expect(dataDirHolder(dataDir)).toBeUndefined();
    acquireDataDirLock(dataDir, 'migrate').release();
  });

  it('takes over a lock whose process is gone', () => {
    record({ pid: 2 ** 22 + 12345, startTime: 'x' }); // above any pid Linux hands out
    expect(dataDirHolder(dataDir)).toBeUndefined();
    const lock = acquireDataDirLock(dataDir, 'start');
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another process (the start time differs)', () => {
    record({ pid: process.ppid, startTime: 'a process that started at another time' });
    const lock = acquireDataDirLock(dataDir, 'start');
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock file that holds no record', () => {
    writeFileSync(lockFile(), 'not json');
    acquireDataDirLock(dataDir, 'start').release();
  });

  it('leaves a lock it no longer holds alone on release', () => {
    const lock = acquireDataDirLock(dataDir, 'start');
    record({ pid: process.ppid, startTime: currentProcessOf(process.ppid) });
    lock.release();
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.ppid);
  });
});

function currentProcessOf(pid: number): string | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  return `${bootId}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
}
