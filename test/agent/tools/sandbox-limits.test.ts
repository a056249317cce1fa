import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaces, hostProcessesWith, run, sandboxedBash, sandboxHost, type Workspaces } from './sandbox-support.js';

let workspaces: Workspaces;
beforeAll(() => {
  workspaces = createWorkspaces('sandbox-limits-');
});
afterAll(() => {
  workspaces?.close();
});

// perl is part of every Debian base system (perl-base), so these need nothing beyond the sandbox's /usr
const FORK_UNTIL_REFUSED = `perl -e 'my $n = 0; while (1) { my $pid = fork(); if (!defined $pid) { print "forked $n: $!\\n"; last } if ($pid == 0) { sleep 30; exit 0 } $n++ }'`;

describe('resource limits of a sandboxed command', () => {
  it('the process limit refuses forks beyond it', async () => {
    expect(sandboxHost().processLimit).not.toBe('none');
    const output = await run(sandboxedBash({ limits: { processes: 24 } }), FORK_UNTIL_REFUSED, workspaces.alice);
    const forked = Number(/forked (\d+): Resource temporarily unavailable/.exec(output)?.[1]);
    expect(forked).toBeGreaterThan(5);
    expect(forked).toBeLessThan(24);
  });

  it('a fork bomb is contained: it never exceeds the limit, the call returns, and no process is left behind', async () => {
    const marker = `bomb${process.pid}`;
    const started = Date.now();
    // a named function, which the blocklist's fork-bomb pattern does not know
    const call = run(sandboxedBash({ limits: { processes: 32 }, timeoutMs: 4_000 }), `${marker}() { ${marker} | ${marker} & }; ${marker}; sleep 3`, workspaces.alice);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const during = hostProcessesWith(marker).length;
    const output = await call;
    expect(during).toBeGreaterThan(5);
    // bwrap's own two processes carry the same command line
    expect(during).toBeLessThanOrEqual(32 + 2);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(output).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  it('the memory limit (address space) stops a large allocation', async () => {
    const output = await run(sandboxedBash({ limits: { memory_mb: 256 } }), `perl -e '$x = "a" x (512 * 1024 * 1024); print length($x), "\\n"'`, workspaces.alice);
    expect(output).toMatch(/Out of memory/);
    expect(output).not.toContain('536870912');
  });

  it('the file size limit stops a write at its size', async () => {
    const output = await run(sandboxedBash({ limits: { file_size_mb: 1 } }), 'head -c 3000000 /dev/zero > big.bin', workspaces.alice);
    expect(output).toMatch(/^Command exited with code 153 \(SIGXFSZ: file size limit reached\)/);
    expect(statSync(join(workspaces.alice, 'big.bin')).size).toBe(1024 * 1024);
  });

  it('the CPU time limit kills a busy loop', async () => {
    const started = Date.now();
    const output = await run(sandboxedBash({ limits: { cpu_seconds: 1 } }), 'while :; do :; done', workspaces.alice);
    expect(output).toMatch(/^Command exited with code 137 \(SIGKILL/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the private /tmp is small', async () => {
    const output = await run(sandboxedBash({ limits: { tmp_mb: 1 } }), 'head -c 3000000 /dev/zero > /tmp/fill', workspaces.alice);
    expect(output).toMatch(/No space left on device/);
  });

  it('a pids cgroup (the service runs as root) is removed after the command', async () => {
    const { cgroups } = sandboxHost();
    if (!cgroups) return expect(sandboxHost().processLimit).toBe('rlimit');
    await run(sandboxedBash(), 'true', workspaces.alice);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readdirSync(cgroups.base).filter((name) => name.startsWith(`chatbot-sandbox-${process.pid}-`))).toEqual([]);
  });
});
