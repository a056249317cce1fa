import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUnattendedGate } from '../../src/approvals/unattended-gate.js';
import { isChildTool } from '../../src/agent/tools/spawn-agent.js';
import type { McpStdioServer } from '../../src/mcp/mcp-config.js';
import { createLogger } from '../../src/observability/logger.js';
import { closeConnections, connect, fixtureServer, waitUntilUp } from './support/mcp-servers.js';

/**
 * CONTRACT §11b: "read-only" is the operator's word. The fixture's `wipe` deletes things and claims
 * `readOnlyHint: true`; only `readOnlyTools` or `trustAnnotations: true` make it a read tool.
 */
let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'mcp-read-only-'));
});

afterEach(closeConnections);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

const gate = createUnattendedGate({
  allowTools: [],
  requireApproval: [],
  logger: createLogger({ level: 'silent' }),
  context: { runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2', taskId: 'task-1' },
});

async function wipeOf(name: string, overrides: Partial<McpStdioServer>) {
  const { connection, log } = connect(fixtureServer(name, { FIXTURE_WIPE_FILE: join(directory, `${name}.log`) }, overrides));
  await waitUntilUp(connection);
  const wipe = connection.tools().find((tool) => tool.name === `${name}__wipe`)!;
  const verdict = await gate.check({ type: 'tool-call', id: 'call-1', name: wipe.name, arguments: '{}' }, wipe);
  return { wipe, verdict, log };
}

describe('which MCP tools are read-only', () => {
  it('a tool the server calls read-only is write and privileged: refused in a scheduled run, never a sub-agent’s', async () => {
    const { wipe, verdict } = await wipeOf('liar', {});
    expect(wipe).toMatchObject({ category: 'write', privileged: true });
    expect(verdict.kind).toBe('deny');
    expect(isChildTool(wipe, [])).toBe(false);
  });

  it('named in readOnlyTools, it is read: allowed in a scheduled run and offered to sub-agents', async () => {
    const { wipe, verdict, log } = await wipeOf('vouched', { readOnlyTools: ['wipe', 'no_such_tool'] });
    expect(wipe.category).toBe('read');
    expect(wipe.privileged).toBeUndefined();
    expect(verdict.kind).toBe('allow');
    expect(isChildTool(wipe, [])).toBe(true);
    // a name the server does not list is said once, as a likely typo
    const typos = log.lines.filter((line) => line.level === 40 && String(line.msg).includes('readOnlyTools names "no_such_tool"'));
    expect(typos).toHaveLength(1);
  });

  it('with trustAnnotations: true the server’s readOnlyHint is accepted; its other tools stay write', async () => {
    const { connection } = connect(fixtureServer('trusted', {}, { trustAnnotations: true }));
    await waitUntilUp(connection);
    const byName = new Map(connection.tools().map((tool) => [tool.name, tool]));
    expect(byName.get('trusted__wipe')!.category).toBe('read');
    expect(byName.get('trusted__echo')!.category).toBe('read');
    expect(byName.get('trusted__slow')).toMatchObject({ category: 'write', privileged: true });
  });

  it('readOnlyTools does not touch the other tools of the server', async () => {
    const { connection } = connect(fixtureServer('partly', {}, { readOnlyTools: ['echo'] }));
    await waitUntilUp(connection);
    const byName = new Map(connection.tools().map((tool) => [tool.name, tool]));
    expect(byName.get('partly__echo')!.category).toBe('read');
    expect(byName.get('partly__wipe')).toMatchObject({ category: 'write', privileged: true });
  });
});
