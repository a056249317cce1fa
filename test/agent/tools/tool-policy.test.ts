import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type AgentTool } from '../../../src/agent/tools/agent-tool.js';
import { defaultTools } from '../../../src/agent/tools/tools-config.js';
import { applyToolPolicy, matchesToolPattern, needsApproval, ToolRegistry } from '../../../src/agent/tools/tool-registry.js';
import type { ApprovalGate, ApprovalVerdict } from '../../../src/core/approval.js';
import { agentInput, collectEvents } from '../support/agent-run.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { echoTool } from '../support/test-tools.js';

function adminTool(calls: string[]): AgentTool {
  return defineTool({
    name: 'restart_service',
    description: 'Restart a service',
    category: 'admin',
    parameters: Type.Object({}),
    execute: async () => {
      calls.push('ran');
      return 'restarted';
    },
  });
}

async function callAdminTool(tools: AgentTool[], approvals?: ApprovalGate) {
  const model = new ScriptedModel([{ toolCalls: [{ name: 'restart_service' }] }, { text: 'ok' }]);
  const events = await collectEvents(agentInput(model, tools, approvals ? { approvals } : {}));
  return events.find((event) => event.type === 'tool-call-end');
}

const answering = (verdict: ApprovalVerdict): ApprovalGate & { asked: string[] } => {
  const asked: string[] = [];
  return { asked, check: async (call, tool) => (asked.push(call.name), needsApproval(tool) ? verdict : { kind: 'allow' }) };
};

describe('tool policy', () => {
  it('S6.14: an admin tool not allowed by policy needs approval: refused with nobody to ask, run only when a person allows it', async () => {
    const calls: string[] = [];
    const registry = new ToolRegistry([echoTool(), adminTool(calls)]);

    const refused = await callAdminTool(registry.toolsFor({ allowAdminTools: false }));
    expect(refused).toMatchObject({ isError: true });
    expect(refused?.type === 'tool-call-end' && refused.output).toMatch(/^Error: the user did not allow this tool call \(it needs a person's approval/);
    expect(calls).toEqual([]);

    const otherListed = await callAdminTool(registry.toolsFor({ allowAdminTools: ['something_else'] }));
    expect(otherListed).toMatchObject({ isError: true });

    const denying = answering({ kind: 'deny', reason: 'denied by Ada' });
    expect(await callAdminTool(registry.toolsFor({ allowAdminTools: false }), denying)).toMatchObject({ isError: true, output: expect.stringContaining('denied by Ada') });
    expect(denying.asked).toEqual(['restart_service']);
    expect(calls).toEqual([]);
    expect(await callAdminTool(registry.toolsFor({ allowAdminTools: false }), answering({ kind: 'allow' }))).toMatchObject({ isError: false, output: 'restarted' });
    expect(calls).toEqual(['ran']);
    calls.length = 0;

    expect(await callAdminTool(registry.toolsFor({ allowAdminTools: ['restart_service'] }))).toMatchObject({ isError: false, output: 'restarted' });
    expect(await callAdminTool(registry.toolsFor({ allowAdminTools: true }))).toMatchObject({ isError: false });
    expect(calls).toEqual(['ran', 'ran']);
  });

  it('read and write tools are not affected by the admin policy; refused tools stay visible', () => {
    const reader = echoTool('reader', 'read');
    const writer = echoTool('writer', 'write');
    const tools = applyToolPolicy([reader, writer, adminTool([])], { allowAdminTools: false });
    expect(tools.map((tool) => tool.name)).toEqual(['reader', 'writer', 'restart_service']);
    expect(tools[0]).toBe(reader);
    expect(tools[1]).toBe(writer);
  });

  it('approval patterns: *, <server>__* and exact names', () => {
    expect(matchesToolPattern('*', 'anything')).toBe(true);
    expect(matchesToolPattern('github__*', 'github__create_issue')).toBe(true);
    expect(matchesToolPattern('github__*', 'gitlab__create_issue')).toBe(false);
    expect(matchesToolPattern('write_file', 'write_file')).toBe(true);
    expect(matchesToolPattern('write_file', 'write_files')).toBe(false);
    expect(matchesToolPattern('a.b', 'aXb')).toBe(false);
    expect(needsApproval(echoTool('writer', 'write'), ['write_*'])).toBe(false);
    expect(needsApproval(echoTool('write_file', 'write'), ['write_*'])).toBe(true);
  });

  it('the registry refuses two tools with one name', () => {
    expect(() => new ToolRegistry([echoTool(), echoTool()])).toThrow(/declared twice/);
  });

  it('default tools: the three file tools, bash only when enabled', () => {
    expect(defaultTools().map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_directory', 'send_file']);
    expect(defaultTools({ bash: { enabled: true } }, { PATH: '/usr/bin' }).map((tool) => tool.name)).toContain('bash');
  });
});
