import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentTool } from '../../../src/agent/tools/agent-tool.js';
import { encodeOptions, sandboxCommandLine, sandboxOptions } from '../../../src/agent/tools/sandbox-arguments.js';
import { DEFAULT_SANDBOX_LIMITS } from '../../../src/agent/tools/sandbox-policy.js';
import { commandToolSettings, defaultTools, ToolsConfigSchema, type ToolsConfig } from '../../../src/agent/tools/tools-config.js';
import { BotError } from '../../../src/core/errors.js';
import { TEST_REDIS_URL } from '../../support/services.js';
import { testToolContext } from '../support/agent-run.js';
import { createWorkspaces, run, sandboxedBash, sandboxHost, type Workspaces } from './sandbox-support.js';

const SERVICE_SECRET = `sk-service-${process.pid}`;
const hostEnv = { PATH: process.env.PATH, HOME: '/home/agent', OPENAI_API_KEY: SERVICE_SECRET, DEPLOY_TOKEN: 'dt-123' };
const missingBwrap = { ...hostEnv, BWRAP_PATH: '/nonexistent/bwrap' };

let workspaces: Workspaces;
beforeAll(() => {
  workspaces = createWorkspaces('sandbox-config-');
});
afterAll(() => {
  workspaces?.close();
});

const tool = (tools: AgentTool[], name: string): AgentTool => tools.find((candidate) => candidate.name === name)!;
const call = async (target: AgentTool, args: Record<string, unknown>): Promise<string> =>
  target.execute(args, testToolContext(new AbortController().signal, workspaces.alice)).catch((error: unknown) => (error as Error).message);

describe('tools.bash.sandbox and tools.cli[].sandbox', () => {
  it('bash with the sandbox on (the default) and no usable bwrap is a configuration error naming the setting and the fix', () => {
    const build = () => defaultTools({ bash: { enabled: true } }, missingBwrap);
    expect(build).toThrow(BotError);
    expect(build).toThrow(
      'tools.bash.sandbox is on but the sandbox cannot run: BWRAP_PATH=/nonexistent/bwrap is not an executable file. ' +
        'Fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), ' +
        'or set tools.bash.sandbox: off to run commands unconfined (not recommended)',
    );
  });

  it('a CLI tool with its sandbox on and no usable bwrap names its own setting', () => {
    const cli = [{ name: 'lister', description: 'ls', category: 'read' as const, cmd: 'ls' }];
    expect(() => defaultTools({ cli }, missingBwrap)).toThrow(/^tools\.cli\[lister\]\.sandbox is on but the sandbox cannot run/);
  });

  it('sandbox: off (or false) starts bash unconfined without bwrap; no command tool needs no bwrap', () => {
    for (const sandbox of ['off', false] as const) {
      const bash = tool(defaultTools({ bash: { enabled: true, sandbox } }, missingBwrap), 'bash');
      expect(bash.description).not.toContain('sandbox');
    }
    expect(defaultTools({}, missingBwrap).map((entry) => entry.name)).toEqual(['read_file', 'write_file', 'list_directory', 'send_file']);
  });

  it('commandToolSettings lists bash and each CLI tool with its setting', () => {
    const config: ToolsConfig = {
      bash: { enabled: true, sandbox: 'off' },
      cli: [{ name: 'jq_tool', description: 'jq', category: 'read', cmd: 'jq' }],
    };
    expect(commandToolSettings(config)).toEqual([
      { tool: 'bash', setting: 'tools.bash.sandbox', sandboxed: false },
      { tool: 'jq_tool', setting: 'tools.cli[jq_tool].sandbox', sandboxed: true },
    ]);
  });

  it('the schema takes sandbox, network, read_only_paths and sandbox_limits, and refuses other values', () => {
    const valid = {
      bash: { enabled: true, sandbox: 'on', network: true, read_only_paths: ['/opt/tools', '~/.config/x'] },
      cli: [{ name: 'gh', description: 'GitHub', category: 'read', cmd: 'gh', sandbox: 'off', network: true }],
      sandbox_limits: { processes: 64, memory_mb: 1024, cpu_seconds: 30, file_size_mb: 10, tmp_mb: 64 },
    };
    expect([...Value.Errors(ToolsConfigSchema, valid)]).toEqual([]);
    expect(Value.Errors(ToolsConfigSchema, { bash: { enabled: true, sandbox: 'maybe' } }).First()?.path).toBe('/bash/sandbox');
    expect(Value.Errors(ToolsConfigSchema, { bash: { enabled: true, read_only_paths: ['relative'] } }).First()?.path).toBe('/bash/read_only_paths/0');
    expect(Value.Errors(ToolsConfigSchema, { sandbox_limits: { processes: 1 } }).First()?.path).toBe('/sandbox_limits/processes');
  });
});

describe('a sandboxed CLI tool', () => {
  const spy = {
    name: 'spy',
    description: 'tries to look around',
    category: 'read' as const,
    cmd: 'sh',
    args: ['-c', 'cat /proc/$PPID/environ; cat ../bob/secret.txt; echo "token=$DEPLOY_TOKEN"; pwd; env | grep -c OPENAI'],
    env: { DEPLOY_TOKEN: '${DEPLOY_TOKEN}' },
  };

  it('gets its declared variables and the workspace, and nothing of the service or of other users', async () => {
    const output = await call(tool(defaultTools({ cli: [spy] }, hostEnv), 'spy'), {});
    expect(output).toContain('token=dt-123');
    expect(output).toContain(`${workspaces.alice}\n`);
    expect(output).not.toContain(SERVICE_SECRET);
    expect(output).not.toContain(workspaces.bobSecret);
  });

  it('has no network unless its declaration says network: true', async () => {
    const redis = new URL(TEST_REDIS_URL);
    const ping = { ...spy, args: ['-c', `exec 3<>/dev/tcp/${redis.hostname}/${redis.port || 6379} && printf 'PING\\r\\n' >&3 && head -c 5 <&3`] };
    // sh here is dash, which has no /dev/tcp: run the probe with bash
    const probe = { ...ping, cmd: 'bash' };
    expect(await call(tool(defaultTools({ cli: [probe] }, hostEnv), 'spy'), {})).not.toContain('+PONG');
    expect(await call(tool(defaultTools({ cli: [{ ...probe, network: true }] }, hostEnv), 'spy'), {})).toBe('+PONG');
  });

  it('is bound by the agent’s sandbox_limits', async () => {
    const config: ToolsConfig = { cli: [{ ...spy, env: {}, args: ['-c', 'head -c 3000000 /dev/zero > big.bin'] }], sandbox_limits: { file_size_mb: 1 } };
    expect(await call(tool(defaultTools(config, hostEnv), 'spy'), {})).toMatch(/SIGXFSZ: file size limit reached/);
  });
});

describe('read_only_paths', () => {
  it('are readable at their own path and not writable', async () => {
    const shared = join(workspaces.root, 'shared');
    mkdirSync(shared);
    writeFileSync(join(shared, 'reference.txt'), 'reference data');
    const output = await run(sandboxedBash({ readOnlyPaths: [shared] }), `cat ${shared}/reference.txt; echo; touch ${shared}/new`, workspaces.alice);
    expect(output).toMatch(/reference data\ntouch: cannot touch '.*\/shared\/new': Read-only file system/);
  });
});

describe('bwrap’s arguments', () => {
  it('environment values travel through the options descriptor, never on the command line', () => {
    const { layout } = sandboxHost();
    const policy = { network: false, readOnlyPaths: [], limits: DEFAULT_SANDBOX_LIMITS };
    const invocation = { workspace: workspaces.alice, env: { PATH: '/usr/bin', TOKEN: 'secret-value' }, command: 'bash', args: ['-c', 'env'] };
    const commandLine = sandboxCommandLine(layout, policy, invocation);
    expect(commandLine.join(' ')).not.toContain('secret-value');
    expect(commandLine.slice(0, 3)).toEqual(['--args', '3', '--']);
    expect(commandLine.slice(-3)).toEqual(['bash', '-c', 'env']);
    const options = sandboxOptions(layout, policy, invocation);
    expect(encodeOptions(options)).toContain('--setenv\0TOKEN\0secret-value\0');
    expect(options).toContain('--unshare-all');
    expect(options).not.toContain('--share-net');
    expect(sandboxOptions(layout, { ...policy, network: true }, invocation)).toContain('--share-net');
  });
});
