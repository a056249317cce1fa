import { describe, expect, it } from 'vitest';
import { BUILT_IN_PERSONA, buildSystemPrompt } from '../../src/agent/index.js';
import { createFileTools } from '../../src/agent/tools/file-tools.js';

const now = new Date('2025-03-04T05:06:07.890Z');
const base = {
  channelSection: 'Telegram supports **bold** and `code`. Keep messages under 4096 characters.',
  tools: createFileTools(),
  now,
};

describe('buildSystemPrompt', () => {
  it('assembles identity, tools, safety, time, messaging, chat context and silent replies in order', () => {
    const prompt = buildSystemPrompt({ ...base, chatContext: { chatType: 'dm', senderName: 'Ana' }, workspace: '/data/workspaces/42' });
    const headings = [...prompt.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Tools', 'Safety', 'Time', 'Messaging', 'Chat', 'Silent replies']);
    expect(prompt.startsWith(BUILT_IN_PERSONA)).toBe(true);
    expect(prompt).toContain('- read_file: Read a text file.');
    expect(prompt).toContain('/data/workspaces/42');
    expect(prompt).toContain('Tuesday, 2025-03-04T05:06:07Z (UTC)');
    expect(prompt).toContain('Telegram supports **bold**');
    expect(prompt).toContain('private conversation with Ana');
    expect(prompt).toMatch(/<safety>[\s\S]*untrusted data[\s\S]*<\/safety>/);
    expect(prompt).toMatch(/reply with exactly NO_REPLY and nothing else/);
  });

  it('SYSTEM_PROMPT replaces the built-in persona at the top', () => {
    const prompt = buildSystemPrompt({ ...base, identity: 'You are Jarvis, a butler.', chatContext: { chatType: 'dm' } });
    expect(prompt.startsWith('You are Jarvis, a butler.\n\n## Tools')).toBe(true);
    expect(prompt).not.toContain(BUILT_IN_PERSONA);
  });

  it('a group chat says several people talk, who is asking, to be brief and to reply NO_REPLY when not addressed', () => {
    const prompt = buildSystemPrompt({ ...base, chatContext: { chatType: 'group', groupName: 'Hiking club', senderName: 'Bo' } });
    expect(prompt).toContain('group chat called "Hiking club"');
    expect(prompt).toContain('Several people talk here');
    expect(prompt).toContain('The latest message is from Bo');
    expect(prompt).toContain('keep replies brief');
    expect(prompt).toContain('If a message is not addressed to you or needs no answer from you, reply with exactly NO_REPLY.');
  });

  it('without tools or channel rules those sections say so or disappear', () => {
    const prompt = buildSystemPrompt({ channelSection: '  ', tools: [], now, chatContext: { chatType: 'dm' } });
    expect(prompt).toContain('You have no tools in this conversation');
    expect(prompt).not.toContain('## Messaging');
    expect(prompt).toContain('private conversation with the user');
  });
});
