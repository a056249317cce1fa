import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { missingPackagesLine, missingSystemPackages, requireSystemPackages } from './system-packages.js';

/** A newcomer without a package the tests drive reads one line saying what is missing and how to install it. */
const saved = { PATH: process.env.PATH, CHROMIUM_PATH: process.env.CHROMIUM_PATH, PGBOUNCER_PATH: process.env.PGBOUNCER_PATH };
afterEach(() => {
  process.env.PATH = saved.PATH;
  for (const variable of ['CHROMIUM_PATH', 'PGBOUNCER_PATH'] as const) {
    if (saved[variable] === undefined) delete process.env[variable];
    else process.env[variable] = saved[variable];
  }
});

describe('system packages the tests need', () => {
  it('finds nothing missing on this machine (it has them all)', () => {
    expect(missingSystemPackages().map((entry) => entry.program)).toEqual([]);
    expect(() => requireSystemPackages('chromium', 'bwrap')).not.toThrow();
  });

  it('a missing Chromium fails the browser test with one line naming it and the apt-get command, no stack trace', () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    let thrown: Error | undefined;
    try {
      requireSystemPackages('chromium');
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toBe(
      'The tests need chromium (the console’s browser test), not installed here: sudo apt-get install -y chromium (Debian/Ubuntu; README "Tests" lists every package)',
    );
    expect(thrown?.stack).toBe(`Error: ${thrown?.message}`);
  });

  it('names every missing package in the one line, with the Debian package that brings each program', () => {
    const empty = mkdtempSync(join(tmpdir(), 'empty-path-'));
    try {
      process.env.PATH = empty;
      process.env.CHROMIUM_PATH = join(empty, 'chromium');
      process.env.PGBOUNCER_PATH = join(empty, 'pgbouncer');
      const missing = missingSystemPackages();
      expect(missing.map((entry) => entry.program)).toEqual(['chromium', 'bwrap', 'redis-server', 'prlimit', 'pgbouncer']);
      const line = missingPackagesLine(missing);
      expect(line).not.toContain('\n');
      expect(line).toContain('sudo apt-get install -y chromium bubblewrap redis-server util-linux pgbouncer');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
