import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { EVERYTHING } from '../mcp/support/mcp-servers.js';

let environment: E2eEnvironment;
let service: ServiceProcess;
let configDirectory: string;
let configFile: string;

/** server-everything over stdio, and a server whose program does not exist. */
const CONFIG = `
agents:
  - id: main
    mcpServers:
      everything:
        command: ${JSON.stringify(process.execPath)}
        args: [${JSON.stringify(EVERYTHING)}, stdio]
        tools: { allow: [echo, get-sum] }
      broken:
        command: /nonexistent/mcp-server
`;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'mcp-e2e-'));
  configFile = join(configDirectory, 'bot.config.yaml');
  writeFileSync(configFile, CONFIG);
  service = await startServiceProcess(environment.env({ CONFIG_FILE: configFile }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

const metricsText = async () => (await fetch(`${service.url}/metrics`)).text();
const sent = (chatId: number) =>
  environment.telegram
    .callsOf('sendMessage')
    .filter((call) => call.params.chat_id === chatId && !call.failed)
    .map((call) => String(call.params.text));

describe('MCP servers in the built service', () => {
  it('offers server-everything’s tools to the model, runs everything__echo, and the answer reaches Telegram', async () => {
    await waitFor(async () => /bot_mcp_server_up\{server="everything"\} 1/.test(await metricsText()), { what: 'the MCP server connected', timeoutMs: 20_000 });
    expect(await metricsText()).toMatch(/bot_mcp_server_up\{server="broken"\} 0/);

    environment.openai.script.push(reply.toolCall('everything__echo', { message: 'hello through MCP' }), reply.text('The server echoed it back.'));
    const update = environment.telegram.makeUpdate.privateText(4101, 'please echo something');
    expect((await postTelegramUpdate(service.url, update)).status).toBe(200);
    await waitFor(() => sent(4101).length > 0, { what: 'the answer on Telegram' });
    expect(sent(4101)).toEqual(['The server echoed it back.']);

    const [first, second] = environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes('please echo something'));
    const offered = (first!.body.tools as Array<{ function: { name: string; parameters: unknown } }>).map((tool) => tool.function);
    expect(offered.map((tool) => tool.name)).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    expect(offered.some((tool) => tool.name.startsWith('broken__') || tool.name === 'everything__get-env')).toBe(false);
    expect(offered.find((tool) => tool.name === 'everything__echo')!.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    const toolMessage = (second!.body.messages as Array<{ role: string; content: unknown }>).find((message) => message.role === 'tool');
    expect(String(toolMessage?.content)).toContain('Echo: hello through MCP');
    expect(await metricsText()).toMatch(/bot_mcp_tool_calls_total\{server="everything",tool="echo",outcome="ok"\} 1/);
  });
});

/** Linux: the pids whose parent is `pid` (from /proc/<pid>/stat). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('shutdown', () => {
  it('stops the MCP server children and exits 0', async () => {
    const children = childrenOf(service.child.pid!);
    expect(children.length).toBeGreaterThan(0);
    expect(await service.stop()).toBe(0);
    await waitFor(() => children.every((pid) => !alive(pid)), { what: 'the MCP children gone', timeoutMs: 5_000 });
  });
});

function cli(command: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, command], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('cli doctor with MCP servers', () => {
  it('prints one line per server with its tool names, or what is wrong', async () => {
    const { code, output } = await cli('doctor', environment.env({ CONFIG_FILE: configFile }));
    expect(output).toMatch(/^ok {4}mcp everything: stdio, 2 tool\(s\): everything__echo, everything__get-sum$/m);
    expect(output).toMatch(/^FAIL {2}mcp broken: could not connect: .*ENOENT.* — check command, args, env and cwd \(the program must speak MCP on stdin\/stdout\)$/m);
    expect(code).toBe(1);
  }, 60_000);
});
