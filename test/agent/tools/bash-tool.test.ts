import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash-tool.js';
import { findBlockedCommand } from '../../../src/agent/tools/command-blocklist.js';
import { unconfinedRunner } from '../../../src/agent/tools/command-runner.js';
import { testToolContext } from '../support/agent-run.js';

let workspace: string;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'bash-tool-')));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const hostEnv = { PATH: process.env.PATH, HOME: '/home/agent', LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-secret', TELEGRAM_BOT_TOKEN: '123:abc', AWS_SECRET_ACCESS_KEY: 'aws' };
const context = (signal = new AbortController().signal) => testToolContext(signal, workspace);

/** A killed process whose parent died stays a zombie until PID 1 reaps it (some containers never do). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return true;
  }
}

// The mechanics of the tool itself, with the sandbox turned off (`tools.bash.sandbox: off`); the sandbox has its own tests.
describe('bash tool', () => {
  it('runs in the workspace and returns combined output', async () => {
    const bash = createBashTool({ runner: unconfinedRunner, hostEnv });
    expect(await bash.execute({ command: 'pwd; echo out; echo err >&2' }, context())).toBe(`${workspace}\nout\nerr\n`);
    expect(bash.category).toBe('write');
  });

  it('a failing command is an error that carries its exit code and output', async () => {
    await expect(createBashTool({ runner: unconfinedRunner, hostEnv }).execute({ command: 'echo nope; exit 3' }, context())).rejects.toThrow('Command exited with code 3:\nnope');
  });

  it('S6.3: output beyond the cap is truncated with a notice', async () => {
    const output = await createBashTool({ runner: unconfinedRunner, hostEnv, maxOutputBytes: 1000 }).execute({ command: "head -c 300000 /dev/zero | tr '\\0' a" }, context());
    expect(output.startsWith('a'.repeat(1000))).toBe(true);
    expect(output).toContain('[output truncated: showing the first 1000 bytes of 293 KB]');
    expect(output.length).toBeLessThan(1100);
  });

  it('S6.4: a command over the timeout is killed with its whole process group and returns a timeout error', async () => {
    const bash = createBashTool({ runner: unconfinedRunner, hostEnv, timeoutMs: 300 });
    const started = Date.now();
    const error = await bash.execute({ command: 'sleep 30 & echo $!; wait' }, context()).catch((caught: unknown) => caught as Error);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^Command timed out after 300 ms and was killed/);
    const backgroundPid = Number(/(\d+)/.exec((error as Error).message.split('\n')[1] ?? '')?.[1]);
    expect(backgroundPid).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(backgroundPid)).toBe(false);
  });

  it('the abort signal kills the command too', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(createBashTool({ runner: unconfinedRunner, hostEnv }).execute({ command: 'sleep 30' }, context(controller.signal))).rejects.toThrow(/cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('S6.5: a dangerous command (rm -rf /) is blocked with a rejection message', async () => {
    await expect(createBashTool({ runner: unconfinedRunner, hostEnv }).execute({ command: 'rm -rf /' }, context())).rejects.toThrow(/Command refused: 'rm' is blocked/);
  });

  it('S6.6: the subprocess environment holds only allow-listed variables', async () => {
    const output = await createBashTool({ runner: unconfinedRunner, hostEnv }).execute({ command: 'env' }, context());
    const keys = output
      .trim()
      .split('\n')
      .map((line) => line.split('=')[0]);
    for (const key of keys) expect(['PATH', 'HOME', 'LANG', 'PWD', 'SHLVL', '_']).toContain(key);
    expect(output).not.toMatch(/sk-secret|123:abc|OPENAI_API_KEY|TELEGRAM_BOT_TOKEN|AWS_SECRET/);
    expect(output).toContain('HOME=/home/agent');
  });
});

describe('dangerous-command blocklist', () => {
  it.each([
    ['rm -rf /', 'rm'],
    ['ls && rm file', 'rm'],
    ['echo hi; sudo reboot', 'sudo'],
    ['cat list | xargs rm', 'rm'],
    ['find . -exec rm {} \\;', 'rm'],
    ['/bin/rm -f x', 'rm'],
    ['"rm" x', 'rm'],
    ['r\\m x', 'rm'],
    ['$(shutdown -h now)', 'shutdown'],
    ['mkfs.ext4 /dev/sda1', 'mkfs'],
    ['dd if=/dev/zero of=disk.img', 'dd'],
    ['chmod 777 /etc', 'chmod 777'],
    ['chmod -R a+rwx .', 'chmod 777'],
    [':(){ :|:& };:', 'fork bomb'],
    ['echo x > /dev/sda', 'writing to a block device'],
  ])('blocks %s', (command, reason) => {
    expect(findBlockedCommand(command)).toBe(reason);
  });

  it.each(['ls -la', 'git status', 'echo confirm', 'grep -r term .', 'chmod 644 notes.md', 'cat rm.txt', 'npm init -y', 'python3 -c "print(1)"'])(
    'allows %s',
    (command) => {
      expect(findBlockedCommand(command)).toBeUndefined();
    },
  );
});
