import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRuntimes } from '../../src/agent-runtimes.js';
import { loadConfig } from '../../src/config/index.js';
import { ChatSettingsResolver } from '../../src/config/chat-settings.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { McpManager } from '../../src/mcp/mcp-manager.js';
import { waitFor } from '../support/service-process.js';
import { captureLog, FAST, TEST_SERVER } from './support/mcp-servers.js';

let manager: McpManager | undefined;

afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

function message(agentId: string): InboundMessage {
  return {
    conversation: { channel: 'telegram', accountId: '1', chatId: '42', chatType: 'dm', messageId: '1' },
    dedupeKey: 'k',
    sender: { id: '42' },
    text: 'hi',
    sentAt: 0,
    addressed: true,
    agentId,
  };
}

describe('AgentRuntimes with MCP servers', () => {
  it('takes each turn’s tools from the servers as they are at its start', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'mcp-runtimes-'));
    writeFileSync(
      join(directory, 'bot.config.yaml'),
      `
agents:
  - id: main
    mcpServers:
      fx: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}], tools: { allow: [echo, pid] } }
  - id: plain
`,
    );
    const config = loadConfig({ OPENAI_API_KEY: 'sk' }, { cwd: directory });
    const log = captureLog();
    manager = new McpManager(config.agents, { ...FAST, logger: log.logger });
    const runtimes = new AgentRuntimes(config, new ChatSettingsResolver(config), log.logger, manager);
    const builtIn = runtimes.turnAgent(message('main')).tools.map((tool) => tool.name);
    // not started yet: the turn gets the built-in tools only, at once
    expect(builtIn.some((name) => name.startsWith('fx__'))).toBe(false);

    manager.start();
    await waitFor(() => runtimes.turnAgent(message('main')).tools.length > builtIn.length, { what: 'the MCP tools in a turn' });
    expect(runtimes.turnAgent(message('main')).tools.map((tool) => tool.name)).toEqual([...builtIn, 'fx__echo', 'fx__pid']);
    expect(runtimes.turnAgent(message('plain')).tools.map((tool) => tool.name)).toEqual(builtIn);

    await manager.close();
    expect(runtimes.turnAgent(message('main')).tools.map((tool) => tool.name)).toEqual(builtIn);
  });

  it('never lets an MCP tool shadow an agent tool of the same name, and says so once', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'mcp-runtimes-'));
    writeFileSync(
      join(directory, 'bot.config.yaml'),
      `
agents:
  - id: main
    tools:
      cli:
        - { name: fx__echo, description: a CLI tool, category: read, cmd: /bin/echo, args: ["{{text}}"], parameters: { text: { type: string } } }
    mcpServers:
      fx: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}], tools: { allow: [echo, pid] } }
`,
    );
    const config = loadConfig({ OPENAI_API_KEY: 'sk' }, { cwd: directory });
    const log = captureLog();
    manager = new McpManager(config.agents, { ...FAST, logger: log.logger });
    const runtimes = new AgentRuntimes(config, new ChatSettingsResolver(config), log.logger, manager);
    manager.start();
    await waitFor(() => runtimes.turnAgent(message('main')).tools.some((tool) => tool.name === 'fx__pid'), { what: 'the MCP tools in a turn' });
    runtimes.turnAgent(message('main'));
    const echoes = runtimes.turnAgent(message('main')).tools.filter((tool) => tool.name === 'fx__echo');
    expect(echoes).toHaveLength(1);
    expect(echoes[0]!.description).toBe('a CLI tool');
    expect(log.lines.filter((line) => line.msg === 'MCP tool skipped: an agent tool has the same name')).toHaveLength(1);
  });
});
