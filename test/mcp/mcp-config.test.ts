import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { captureLog } from './support/mcp-servers.js';

function load(text: string, env: Record<string, string> = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-config-'));
  writeFileSync(join(directory, 'bot.config.yaml'), text);
  return loadConfig({ OPENAI_API_KEY: 'sk-env', ...env }, { cwd: directory });
}

function errorOf(text: string, env: Record<string, string> = {}): string {
  try {
    load(text, env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

const agentWith = (servers: string) => `
agents:
  - id: main
    mcpServers:
${servers}
`;

describe('mcpServers in the config file', () => {
  it('reads stdio and HTTP servers with their defaults, substituting ${VAR} in env and headers', () => {
    const config = load(
      agentWith(`
      files:
        command: npx
        args: [-y, some-mcp-server, --root, /srv]
        env: { API_TOKEN: "\${FILES_TOKEN}", MODE: plain }
        cwd: /tmp
        tools: { deny: [delete_file] }
      remote:
        url: https://mcp.example.com/mcp
        headers: { Authorization: "Bearer \${REMOTE_TOKEN}" }
        tools: { allow: [search] }
        approval: always
        timeoutMs: 5000
        readOnlyTools: [search]
        trustAnnotations: true`),
      { FILES_TOKEN: 'files-secret', REMOTE_TOKEN: 'remote-secret' },
    );
    expect(config.agents[0]!.mcpServers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'some-mcp-server', '--root', '/srv'],
        env: { API_TOKEN: 'files-secret', MODE: 'plain' },
        cwd: '/tmp',
        tools: { allow: undefined, deny: ['delete_file'] },
        approval: 'never',
        timeoutMs: 60_000,
        readOnlyTools: [],
        trustAnnotations: false,
      },
      {
        name: 'remote',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer remote-secret' },
        tools: { allow: ['search'], deny: undefined },
        approval: 'always',
        timeoutMs: 5_000,
        readOnlyTools: ['search'],
        trustAnnotations: true,
      },
    ]);
  });

  it('gives agents without mcpServers none, and works without a config file', () => {
    expect(load('agents:\n  - id: main\n').agents[0]!.mcpServers).toEqual([]);
    expect(loadConfig({ OPENAI_API_KEY: 'sk' }, { cwd: mkdtempSync(join(tmpdir(), 'mcp-none-')) }).agents[0]!.mcpServers).toEqual([]);
  });

  it('names the file and the path of each bad field', () => {
    expect(errorOf(agentWith('      files: { command: x, comand: y }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/comand: Unexpected property');
    expect(errorOf(agentWith('      files: { command: x, tools: { allowed: [a] } }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/tools/allowed: Unexpected property');
    expect(errorOf(agentWith('      files: { command: x, approval: sometimes }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/approval: Expected one of: "never", "always"');
    expect(errorOf(agentWith('      files: { command: x, timeoutMs: 0 }'))).toMatch(/^bot\.config\.yaml: \/agents\/0\/mcpServers\/files\/timeoutMs: /);
    expect(errorOf(agentWith('      files: { url: "ftp://example.com" }'))).toMatch(/^bot\.config\.yaml: \/agents\/0\/mcpServers\/files\/url: /);
    expect(errorOf(agentWith('      files: { command: x, env: { TOKEN: 12 } }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/env/TOKEN: Expected string');
    expect(errorOf(agentWith('      files: { command: x, readOnlyTools: search }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/readOnlyTools: Expected array');
    expect(errorOf(agentWith('      files: { command: x, trustAnnotations: maybe }'))).toBe('bot.config.yaml: /agents/0/mcpServers/files/trustAnnotations: Expected boolean');
  });

  it('refuses a bad server name, a server with neither or both of command and url, and fields of the other transport', () => {
    expect(errorOf(agentWith('      My_Server: { command: x }'))).toBe(
      'bot.config.yaml: /agents/0/mcpServers/My_Server: a server name is 1 to 32 lowercase letters, digits or "-" (it prefixes its tools: <server>__<tool>)',
    );
    expect(errorOf(agentWith(`      ${'a'.repeat(33)}: { command: x }`))).toMatch(/a server name is 1 to 32 lowercase letters/);
    expect(errorOf(agentWith('      empty: { approval: always }'))).toBe('bot.config.yaml: /agents/0/mcpServers/empty: set either command (stdio) or url (HTTP)');
    expect(errorOf(agentWith('      both: { command: x, url: "http://127.0.0.1:1/mcp" }'))).toBe(
      'bot.config.yaml: /agents/0/mcpServers/both/url: set either command (stdio) or url (HTTP), not both',
    );
    expect(errorOf(agentWith('      web: { url: "http://127.0.0.1:1/mcp", args: [a] }'))).toBe(
      'bot.config.yaml: /agents/0/mcpServers/web/args: args applies to a stdio server (command), not to url',
    );
    expect(errorOf(agentWith('      local: { command: x, headers: { X-Key: y } }'))).toBe(
      'bot.config.yaml: /agents/0/mcpServers/local/headers: headers apply to an HTTP server (url), not to command',
    );
  });

  it('names the variable of an unset ${VAR} in env or headers, without showing any other value', () => {
    const message = errorOf(agentWith('      remote: { url: "https://x.example/mcp", headers: { Authorization: "Bearer ${MISSING_TOKEN}" } }'));
    expect(message).toBe('bot.config.yaml: /agents/0/mcpServers/remote/headers/Authorization: environment variable MISSING_TOKEN is not set');
  });
});

describe('logging MCP server settings', () => {
  it('blanks env values and header values, keeping their names', () => {
    const log = captureLog('info');
    log.logger.info({ env: { API_TOKEN: 'env-secret-1' }, server: { env: { API_TOKEN: 'env-secret-2' }, headers: { Authorization: 'Bearer header-secret' } } }, 'server');
    log.logger.info({ headers: { 'x-api-key': 'header-secret-2' } }, 'request');
    const text = log.text();
    for (const secret of ['env-secret-1', 'env-secret-2', 'header-secret', 'header-secret-2']) expect(text).not.toContain(secret);
    expect(log.lines[0]!.server.env.API_TOKEN).toBe('[redacted]');
    expect(log.lines[1]!.headers['x-api-key']).toBe('[redacted]');
  });
});
