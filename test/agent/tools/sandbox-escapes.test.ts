import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBlockedCommand } from '../../../src/agent/tools/command-blocklist.js';
import { createFileTools } from '../../../src/agent/tools/file-tools.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../support/services.js';
import { testToolContext } from '../support/agent-run.js';
import { createWorkspaces, hostProcessesLeft, hostProcessesWith, run, sandboxedBash, type Workspaces } from './sandbox-support.js';

// Every escape below worked against the unconfined bash tool (issue 9); each now runs INSIDE the sandbox and fails.
const SERVICE_SECRET = `fake-llm-key-${process.pid}-${Date.now()}`;
let workspaces: Workspaces;
let outsideFile: string;

beforeAll(() => {
  process.env.SANDBOX_TEST_SECRET = SERVICE_SECRET;
  workspaces = createWorkspaces('sandbox-escapes-');
  outsideFile = join(workspaces.root, 'outside.txt');
  writeFileSync(outsideFile, 'keep me');
});

afterAll(() => {
  delete process.env.SANDBOX_TEST_SECRET;
  workspaces?.close();
});

const bash = () => sandboxedBash();
const inAlice = (command: string) => run(bash(), command, workspaces.alice);
const redis = new URL(TEST_REDIS_URL);
const postgres = new URL(TEST_DATABASE_URL);

describe('the sandbox keeps the service’s secrets out of reach', () => {
  it('/proc shows only the sandbox’s own processes: the service’s environ (and any host process’s) cannot be read', async () => {
    const output = await inAlice(
      [
        'echo "ppid=$PPID"',
        'cat /proc/$PPID/environ',
        `cat /proc/${process.pid}/environ`,
        `cat /proc/${process.ppid}/environ`,
        'for file in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$file"; done',
        // a line of its own: stderr (the cats above) and stdout come through two pipes, in either order
        'echo "pids: $(ls /proc | grep -E "^[0-9]+$" | tr "\\n" " ")"',
      ].join('; '),
    );
    expect(output).toContain('ppid=1');
    expect(output).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file or directory`));
    expect(output).not.toContain(SERVICE_SECRET);
    expect(output).not.toContain('SANDBOX_TEST_SECRET');
    const pidLine = output.split('\n').find((line) => line.startsWith('pids: '));
    const pids = pidLine!.slice('pids: '.length).trim().split(' ').map(Number);
    expect(pids.length).toBeGreaterThan(0);
    expect(Math.max(...pids)).toBeLessThan(20);
  });

  it('the command’s environment holds only the allow-listed variables, HOME being the workspace', async () => {
    const output = await inAlice('env');
    expect(output).not.toContain(SERVICE_SECRET);
    const keys = output.trim().split('\n').map((line) => line.split('=')[0]);
    for (const key of keys) expect(['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'TMPDIR', 'TZ', 'PWD', 'SHLVL', '_']).toContain(key);
    expect(output).toContain(`HOME=${workspaces.alice}\n`);
  });

  it('the bwrap command line visible to other host users carries no environment value', async () => {
    const marker = `argv-marker-${process.pid}`;
    const running = run(bash(), `sleep 2 # ${marker}`, workspaces.alice);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cmdlines = hostProcessesWith(marker).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    expect(cmdlines.some((cmdline) => cmdline.includes('bwrap'))).toBe(true);
    for (const cmdline of cmdlines) expect(cmdline).not.toMatch(/--setenv|PATH=/);
    await running;
  });
});

describe('the sandbox’s file system', () => {
  it('another user’s workspace is not there, by relative or absolute path', async () => {
    const output = await inAlice(['cat ../bob/secret.txt', `cat ${join(workspaces.bob, 'secret.txt')}`, `find / -name secret.txt 2>/dev/null`].join('; '));
    expect(output).not.toContain(workspaces.bobSecret);
    expect(output).toMatch(/cat: \.\.\/bob\/secret\.txt: No such file or directory/);
    expect(output).toMatch(/cat: \S+\/workspaces\/bob\/secret\.txt: No such file or directory/);
    expect(await inAlice('ls -A ..')).toBe('alice\n');
  });

  it('the project, DATA_DIR, /root, /home and the rest of /etc are not mounted', async () => {
    const output = await inAlice(
      [
        `test -e ${join(process.cwd(), 'package.json')} && echo project-visible`,
        `test -e ${outsideFile} && echo data-dir-visible`,
        'test -e /root && echo root-visible',
        'test -e /home && echo home-visible',
        'test -e /etc/shadow && echo shadow-visible',
        'test -e /var/lib/postgresql && echo postgres-visible',
        'echo checked',
      ].join('; '),
    );
    expect(output).toBe('checked\n');
  });

  it('outside the workspace nothing is writable but the private /tmp, which is gone after the command', async () => {
    const output = await inAlice(
      ['touch /usr/evil', 'touch /etc/evil', 'touch /evil', 'touch /dev/evil', 'echo temp > /tmp/scratch && echo tmp-ok', 'echo mine > mine.txt && echo ws-ok'].join('; '),
    );
    expect(output.match(/Read-only file system/g)).toHaveLength(4);
    expect(output).toContain('tmp-ok');
    expect(output).toContain('ws-ok');
    expect(readFileSync(join(workspaces.alice, 'mine.txt'), 'utf8')).toBe('mine\n');
    expect(await inAlice('cat /tmp/scratch')).toMatch(/No such file or directory/);
  });

  it('the kernel’s settings in /proc/sys cannot be written (the same value written back, so nothing changes if it could)', async () => {
    const output = await inAlice('value=$(cat /proc/sys/kernel/printk_ratelimit) && echo "$value" > /proc/sys/kernel/printk_ratelimit && echo written');
    expect(output).toMatch(/printk_ratelimit: Read-only file system/);
    expect(output).not.toContain('written');
  });

  it('the blocklist bypass $(printf "r%s" m) runs, but deletes nothing outside the workspace', async () => {
    const command =
      `$(printf "r%s" m) -rf ${outsideFile} ../bob ${workspaces.bob} /usr/share/doc /etc/hosts 2>/dev/null || echo refused-outside; ` +
      '$(printf "r%s" m) mine-to-delete.txt && echo deleted-inside';
    // the blocklist is only a first filter: this passes it
    expect(findBlockedCommand(command)).toBeUndefined();
    writeFileSync(join(workspaces.alice, 'mine-to-delete.txt'), 'x');
    const output = await inAlice(command);
    expect(output).toBe('refused-outside\ndeleted-inside\n');
    expect(existsSync(join(workspaces.alice, 'mine-to-delete.txt'))).toBe(false);
    expect(readFileSync(outsideFile, 'utf8')).toBe('keep me');
    expect(readFileSync(join(workspaces.bob, 'secret.txt'), 'utf8')).toBe(workspaces.bobSecret);
    expect(existsSync('/usr/share/doc')).toBe(true);
  });

  it('what bash writes in the workspace the file tools read, and the other way round, by relative and absolute path', async () => {
    const [readFile, writeFile] = createFileTools();
    const context = testToolContext(new AbortController().signal, workspaces.alice);
    expect(await inAlice('mkdir -p notes && echo "from bash" > notes/a.txt && realpath notes/a.txt')).toBe(`${join(workspaces.alice, 'notes', 'a.txt')}\n`);
    expect(await readFile!.execute({ path: 'notes/a.txt' }, context)).toBe('from bash\n');
    expect(await readFile!.execute({ path: join(workspaces.alice, 'notes', 'a.txt') }, context)).toBe('from bash\n');
    await writeFile!.execute({ path: 'notes/b.txt', content: 'from write_file\n' }, context);
    expect(await inAlice('cat notes/b.txt && echo "and bash" >> notes/b.txt && pwd')).toBe(`from write_file\n${workspaces.alice}\n`);
    expect(await readFile!.execute({ path: 'notes/b.txt' }, context)).toBe('from write_file\nand bash\n');
  });
});

describe('the sandbox’s network', () => {
  const redisProbe = `exec 3<>/dev/tcp/${redis.hostname}/${redis.port || 6379} && printf 'PING\\r\\n' >&3 && head -c 5 <&3`;

  it('is off: Redis and PostgreSQL on 127.0.0.1 cannot be reached', async () => {
    const output = await inAlice(`${redisProbe}; echo; exec 4<>/dev/tcp/${postgres.hostname}/${postgres.port || 5432} && echo pg-open`);
    expect(output).not.toContain('+PONG');
    expect(output).not.toContain('pg-open');
    expect(output).toMatch(/Connection refused|Network is unreachable/);
  });

  it('is the host’s with network: true', async () => {
    expect(await run(sandboxedBash({ network: true }), redisProbe, workspaces.alice)).toBe('+PONG');
  });
});

describe('the sandbox’s processes', () => {
  it('kill of its parent, of PID 1 or of the test process has no effect outside', async () => {
    const output = await inAlice(`kill -TERM $PPID; kill -KILL 1; kill -TERM ${process.pid}; kill -KILL ${process.pid}; kill -0 ${process.ppid}; echo still-here`);
    expect(output).toMatch(new RegExp(`kill: \\(${process.pid}\\) - No such process`));
    expect(output).toContain('still-here');
    // the test process is alive (it runs this line), and the next command gets a fresh sandbox
    expect(await inAlice('echo next')).toBe('next\n');
  });

  it('nohup, setsid and double-forked background jobs are gone when the command returns', async () => {
    const marker = `98765${process.pid % 10}`;
    const output = await inAlice(
      `nohup sleep ${marker}1 >/dev/null 2>&1 & setsid sleep ${marker}2 >/dev/null 2>&1 & (sleep ${marker}3 &) ; disown -a; echo started`,
    );
    expect(output).toBe('started\n');
    expect(await hostProcessesLeft(`sleep ${marker}`)).toEqual([]);
  });

  it('a timeout kills bwrap and everything in the sandbox', async () => {
    const marker = `87654${process.pid % 10}`;
    const started = Date.now();
    const output = await run(sandboxedBash({ timeoutMs: 700 }), `setsid sleep ${marker}1 & nohup sleep ${marker}2 & sleep ${marker}3`, workspaces.alice);
    expect(output).toMatch(/^Command timed out after 700 ms and was killed/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await hostProcessesLeft(marker)).toEqual([]);
  });

  it('an abort kills bwrap and everything in the sandbox', async () => {
    const marker = `76543${process.pid % 10}`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const output = await run(bash(), `setsid sleep ${marker}1 & sleep ${marker}2`, workspaces.alice, controller.signal);
    expect(output).toMatch(/^Command cancelled/);
    expect(await hostProcessesLeft(marker)).toEqual([]);
  });
});
