import { Type } from '@sinclair/typebox';
import { defineTool, type AgentTool, type ToolCategory } from '../../../src/agent/tools/agent-tool.js';

export function echoTool(name = 'echo', category: ToolCategory = 'read'): AgentTool {
  return defineTool({
    name,
    description: 'Echo the text back',
    category,
    parameters: Type.Object({ text: Type.String() }),
    execute: async (args) => `echo: ${args.text}`,
  });
}

export function failingTool(message = 'disk on fire'): AgentTool {
  return defineTool({
    name: 'explode',
    description: 'Always throws',
    category: 'read',
    parameters: Type.Object({}),
    execute: async () => {
      throw new Error(message);
    },
  });
}

/** Resolves after `delayMs` of real time, recording when it finished. */
export function delayedTool(finished: string[]): AgentTool {
  return defineTool({
    name: 'wait',
    description: 'Wait, then answer',
    category: 'read',
    parameters: Type.Object({ label: Type.String(), delayMs: Type.Integer() }),
    execute: async (args) => {
      await new Promise((resolve) => setTimeout(resolve, args.delayMs));
      finished.push(args.label);
      return `done ${args.label}`;
    },
  });
}
