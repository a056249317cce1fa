import { describe, expect, it } from 'vitest';
import { ChatPromptCache, buildSystemPrompt } from '../../src/agent/index.js';
import type { AgentTool } from '../../src/agent/tools/agent-tool.js';
import { createFileTools } from '../../src/agent/tools/file-tools.js';

const channelSection = '## Messaging\nTelegram supports **bold**.';

/** The file tools, each counting how often its description is read (the prompt's tool list reads it). */
function countedTools(): { tools: AgentTool[]; reads: () => number } {
  let reads = 0;
  const tools = createFileTools().map((tool) => {
    const description = tool.description;
    return Object.defineProperty({ ...tool }, 'description', {
      get: () => {
        reads++;
        return description;
      },
      enumerable: true,
    }) as AgentTool;
  });
  return { tools, reads: () => reads };
}

describe('ChatPromptCache', () => {
  it('builds a chat’s prompt once while nothing it is made of changes', () => {
    const cache = new ChatPromptCache();
    const { tools, reads } = countedTools();
    const options = { channelSection, tools, workspace: '/w/1', chatContext: { chatType: 'dm' as const, senderName: 'Ana' } };
    const first = cache.prompt(options);
    expect(first).toBe(buildSystemPrompt(options));
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    expect(cache.prompt({ ...options, chatContext: { chatType: 'dm', senderName: 'Ana' } })).toBe(first);
    expect(reads()).toBe(afterFirst);
  });

  it('builds it again when the sender, the workspace, the tools, the identity or the chat’s instructions change', () => {
    const cache = new ChatPromptCache();
    const tools = createFileTools();
    const options = { channelSection, tools, workspace: '/w/1', chatContext: { chatType: 'dm' as const, senderName: 'Ana' } };
    cache.prompt(options);
    const renamed = { ...options, chatContext: { chatType: 'dm' as const, senderName: 'Bea' } };
    expect(cache.prompt(renamed)).toContain('private conversation with Bea');
    expect(cache.prompt({ ...options, workspace: '/w/2' })).toContain('/w/2');
    const fewer = tools.slice(1);
    expect(cache.prompt({ ...options, tools: fewer })).not.toContain(`- ${tools[0]!.name}:`);
    const reworded = [{ ...tools[0]!, description: 'Reads a file, reworded.' }, ...tools.slice(1)];
    expect(cache.prompt({ ...options, tools: reworded })).toContain('Reads a file, reworded.');
    expect(cache.prompt({ ...options, identity: 'You are Jarvis.' }).startsWith('You are Jarvis.')).toBe(true);
    expect(cache.prompt({ ...options, chatPrompt: '  Speak French.  ' })).toBe(`${buildSystemPrompt(options)}\n\n## Instructions for this chat\nSpeak French.`);
    expect(cache.prompt({ ...options, channelSection: '## Messaging\nSlack.' })).toContain('Slack.');
    expect(cache.prompt(options)).toBe(buildSystemPrompt(options));
  });
});
