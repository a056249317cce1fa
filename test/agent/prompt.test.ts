import { describe, expect, it } from 'vitest';
import { BUILT_IN_PERSONA, buildSystemPrompt } from '../../src/agent/index.js';
import { createFileTools } from '../../src/agent/tools/file-tools.js';

const base = {
  channelSection: 'Telegram supports **bold** and `code`. Keep messages under 4096 characters.',
  tools: createFileTools(),
};

describe('buildSystemPrompt', () => {
  it('assembles identity, tools, safety, time, messaging, chat context and silent replies in order', () => {
    const prompt = buildSystemPrompt({ ...base, chatContext: { chatType: 'dm', senderName: 'Ana' }, workspace: '/data/workspaces/42' });
    const headings = [...prompt.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Tools', 'Safety', 'Time', 'Messaging', 'Chat', 'Silent replies']);
    expect(prompt.startsWith(BUILT_IN_PERSONA)).toBe(true);
    expect(prompt).toContain('- read_file: Read a text file.');
    expect(prompt).toContain('/data/workspaces/42');
    // no clock: the time is in each user message's envelope, so the prompt stays the same from turn to turn
    expect(prompt).toContain('Each user message starts with the date and time (UTC)');
    expect(prompt).not.toMatch(/\d{4}-\d{2}-\d{2}/);
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

  it('a group chat says several people talk, to answer the latest sender, to be brief and to reply NO_REPLY when not addressed', () => {
    const prompt = buildSystemPrompt({ ...base, chatContext: { chatType: 'group', groupName: 'Hiking club', senderName: 'Bo' } });
    expect(prompt).toContain('group chat whose members named it "Hiking club"');
    expect(prompt).toContain('Several people talk here');
    expect(prompt).toContain('Answer the sender of the latest message');
    // who asked changes every turn: it is in the message envelope, never in the cached prompt
    expect(prompt).not.toContain('Bo');
    expect(prompt).toContain('keep replies brief');
    expect(prompt).toContain('If a message is not addressed to you or needs no answer from you, reply with exactly NO_REPLY.');
  });

  it('without tools or channel rules those sections say so or disappear', () => {
    const prompt = buildSystemPrompt({ channelSection: '  ', tools: [], chatContext: { chatType: 'dm' } });
    expect(prompt).toContain('You have no tools in this conversation');
    expect(prompt).not.toContain('## Messaging');
    expect(prompt).toContain('private conversation with the user');
  });
});
