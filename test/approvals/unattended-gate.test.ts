import { describe, expect, it } from 'vitest';
import type { ToolCallPart } from '../../src/core/chat-message.js';
import { createUnattendedGate } from '../../src/approvals/unattended-gate.js';
import { createBashTool } from '../../src/agent/tools/bash-tool.js';
import { createCliTool, parseCliToolDeclaration } from '../../src/agent/tools/cli-tool.js';
import { unconfinedRunner } from '../../src/agent/tools/command-runner.js';
import { createFileTools } from '../../src/agent/tools/file-tools.js';
import { createSendFileTool } from '../../src/agent/tools/send-file-tool.js';
import type { AgentTool } from '../../src/agent/tools/agent-tool.js';
import { createLogger } from '../../src/observability/logger.js';

const logger = createLogger({ level: 'silent' });
const context = { runId: 'run-1', sessionKey: 'agent:main:telegram:1:dm:2', taskId: 'abcd1234' };
const call = (name: string): ToolCallPart => ({ type: 'tool-call', id: 'call-1', name, arguments: '{}' });
const cli = createCliTool(parseCliToolDeclaration({ name: 'disk_usage', description: 'df', category: 'read', cmd: 'df', args: ['-h'] }), {}, { runner: unconfinedRunner });
const [readFile, writeFile, listDirectory] = createFileTools();
const mcpWrite: AgentTool = { ...readFile!, name: 'crm__update', category: 'write', requiresApproval: true };
const mcpRead: AgentTool = { ...readFile!, name: 'crm__lookup', category: 'read' };
const tools = [createBashTool({ runner: unconfinedRunner }), cli, readFile!, writeFile!, listDirectory!, createSendFileTool(), mcpWrite, mcpRead];

async function verdicts(allowTools: string[], requireApproval: string[] = []) {
  const gate = createUnattendedGate({ allowTools, requireApproval, logger, context });
  const entries = await Promise.all(tools.map(async (tool) => [tool.name, (await gate.check(call(tool.name), tool)).kind] as const));
  return Object.fromEntries(entries);
}

describe('the unattended gate of scheduled runs', () => {
  it('refuses bash, CLI tools (even read-category ones), file writes, file sends and tools needing approval; read-only tools run', async () => {
    expect(await verdicts([])).toEqual({
      bash: 'deny',
      disk_usage: 'deny',
      read_file: 'allow',
      write_file: 'deny',
      list_directory: 'allow',
      send_file: 'deny',
      crm__update: 'deny',
      crm__lookup: 'allow',
    });
  });

  it('a tool the agent puts under approval in chat is refused too', async () => {
    expect((await verdicts([], ['crm__*'])).crm__lookup).toBe('deny');
  });

  it('schedules.allowTools lets named tools and patterns run', async () => {
    expect(await verdicts(['bash', 'crm__*'])).toMatchObject({ bash: 'allow', crm__update: 'allow', write_file: 'deny', send_file: 'deny', disk_usage: 'deny' });
    expect(Object.values(await verdicts(['*']))).not.toContain('deny');
  });

  it("the refusal is the tool's result, naming the tool and the setting", async () => {
    const gate = createUnattendedGate({ allowTools: [], requireApproval: [], logger, context });
    const verdict = await gate.check(call('send_file'), tools.find((tool) => tool.name === 'send_file')!);
    expect(verdict).toMatchObject({ kind: 'deny' });
    expect(verdict.kind === 'deny' && verdict.toolResult).toMatch(/^Error: send_file is not available in a scheduled task's run\..*schedules\.allowTools/);
  });
});
