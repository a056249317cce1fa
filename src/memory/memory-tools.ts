import { Type } from '@sinclair/typebox';
import { defineTool, ToolError, type AgentTool, type ToolContext } from '../agent/tools/agent-tool.js';
import type { MemoryService } from './memory-service.js';
import { MEMORY_MAX_CHARS } from './memory-text.js';

const RememberParameters = Type.Object({ text: Type.String({ minLength: 1, maxLength: MEMORY_MAX_CHARS, description: 'One short, self-contained fact' }) });
const RecallParameters = Type.Object({ query: Type.String({ minLength: 1, description: 'Words to look for' }) });
const ForgetParameters = Type.Object({ id: Type.String({ minLength: 1, description: 'The id shown by recall or /memory' }) });

function scopeOf(service: MemoryService, context: ToolContext): string {
  if (!context.conversation) throw new ToolError('Memory is only available inside a chat.');
  return service.scopeOf(context.conversation, context.userId);
}

/** `remember`, `recall`, `forget` (CONTRACT §13): the user's memory in a DM, the group's in a group. */
export function createMemoryTools(service: MemoryService): AgentTool[] {
  return [
    defineTool({
      name: 'remember',
      description:
        'Save a durable fact for later conversations (who the user is, preferences, decisions). It survives /new. Keep it short; never store secrets.',
      parameters: RememberParameters,
      category: 'write',
      label: 'Saving to memory…',
      async execute({ text }, context) {
        const result = await service.remember(scopeOf(service, context), text);
        switch (result.kind) {
          case 'added':
            return `Remembered (id ${result.memory.id}).`;
          case 'duplicate':
            return `Already remembered (id ${result.memory.id}); nothing added.`;
          case 'updated':
            return `Updated the similar memory ${result.memory.id} to the new wording.`;
        }
      },
    }),
    defineTool({
      name: 'recall',
      description: "Search this chat's saved memories by words; returns matching memories with their ids.",
      parameters: RecallParameters,
      category: 'read',
      label: 'Searching memory…',
      async execute({ query }, context) {
        const found = await service.recall(scopeOf(service, context), query);
        if (found.length === 0) return 'No memory matches.';
        return found.map((memory) => `[${memory.id}] ${memory.text}`).join('\n');
      },
    }),
    defineTool({
      name: 'forget',
      description: 'Delete one saved memory by its id (from recall or the memory section).',
      parameters: ForgetParameters,
      category: 'write',
      label: 'Updating memory…',
      async execute({ id }, context) {
        const numeric = parseMemoryId(id);
        if (numeric === undefined) throw new ToolError(`"${id}" is not a memory id: ids are numbers, as recall shows them.`);
        const deleted = await service.forget(scopeOf(service, context), numeric);
        if (!deleted) throw new ToolError(`No memory ${numeric} in this chat.`);
        return `Forgot memory ${numeric}: ${deleted.text}`;
      },
    }),
  ];
}

export function parseMemoryId(text: string): number | undefined {
  const match = /^\s*\[?#?(\d{1,15})\]?\s*$/.exec(text);
  return match ? Number(match[1]) : undefined;
}
