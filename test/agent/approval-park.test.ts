import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { ApprovalGate, ApprovalVerdict } from '../../src/core/approval.js';
import { defineTool, type AgentTool } from '../../src/agent/tools/agent-tool.js';
import type { TurnStep } from '../../src/agent/turn-steps.js';
import type { ChatMessage } from '../../src/core/chat-message.js';
import { agentInput, collectEvents, terminalOf } from './support/agent-run.js';
import { ScriptedModel } from './support/scripted-model.js';

function loggingTool(name: string, log: string[], requiresApproval = false): AgentTool {
  return defineTool({
    name,
    description: name,
    category: 'write',
    parameters: Type.Object({ line: Type.String() }),
    execute: async (args) => {
      log.push(`${name}:${args.line}`);
      return `${name} did ${args.line}`;
    },
    ...(requiresApproval ? { requiresApproval: true } : {}),
  });
}

/** Answers every call of a tool that needs approval with the current verdict; others run. */
function gate(verdict: () => ApprovalVerdict): ApprovalGate & { asked: string[] } {
  const asked: string[] = [];
  return { asked, check: async (call, tool) => (tool.requiresApproval ? (asked.push(call.id), verdict()) : { kind: 'allow' }) };
}

const results = (messages: ChatMessage[]) => messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'));

describe('a tool call waiting for approval parks the run on its checkpoint', () => {
  const calls = { toolCalls: [{ id: 'safe', name: 'note', args: { line: 'a' } }, { id: 'risky', name: 'deploy', args: { line: 'prod' } }] };

  it('runs the other calls, ends with run-park, and after "allow" resumes without a new model call for the step or a second run of the others', async () => {
    const log: string[] = [];
    const steps: TurnStep[] = [];
    const checkpoint = async (step: TurnStep) => void steps.push(step);
    const tools = () => [loggingTool('note', log), loggingTool('deploy', log, true)];
    let verdict: ApprovalVerdict = { kind: 'wait', untilMs: 99_000 };
    const approvals = gate(() => verdict);

    const first = new ScriptedModel([calls]);
    const parked = terminalOf(await collectEvents(agentInput(first, tools(), { checkpoint, approvals })));
    expect(parked).toMatchObject({ type: 'run-park', untilMs: 99_000, toolName: 'deploy' });
    expect(log).toEqual(['note:a']);
    expect(steps.map((step) => step.type)).toEqual(['model', 'tool-start', 'tool-result']);

    verdict = { kind: 'allow' };
    const resumed = new ScriptedModel([(request) => ({ text: `done with ${results(request.messages).length} results` })]);
    const end = terminalOf(await collectEvents(agentInput(resumed, tools(), { resume: [...steps], checkpoint, approvals })));
    expect(end).toMatchObject({ type: 'run-end', text: 'done with 2 results' });
    expect(log).toEqual(['note:a', 'deploy:prod']);
    expect(resumed.requests).toHaveLength(1);
    expect(approvals.asked).toEqual(['risky', 'risky']);
  });

  it('a denied call gets a result saying so and the turn goes on; a stop ends it as cancelled by the user', async () => {
    const log: string[] = [];
    const denied = new ScriptedModel([calls, (request) => ({ text: results(request.messages).map((part) => part.type === 'tool-result' && part.content).join(' | ') })]);
    const end = terminalOf(await collectEvents(agentInput(denied, [loggingTool('note', log), loggingTool('deploy', log, true)], { approvals: gate(() => ({ kind: 'deny', reason: 'Ada said no' })) })));
    expect(end.type).toBe('run-end');
    expect(end.type === 'run-end' && end.text).toMatch(/note did a \| Error: the user did not allow this tool call \(Ada said no\)/);
    expect(log).toEqual(['note:a']);

    const stopped = terminalOf(await collectEvents(agentInput(new ScriptedModel([calls]), [loggingTool('note', log), loggingTool('deploy', log, true)], { approvals: gate(() => ({ kind: 'stop' })) })));
    expect(stopped).toMatchObject({ type: 'run-cancel', by: 'user' });
    expect(log).toEqual(['note:a']);
  });
});
