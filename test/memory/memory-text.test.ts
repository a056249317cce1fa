import { describe, expect, it } from 'vitest';
import { anyWordQuery, memoryScopeOf, normalizeMemory, selectPromptMemories, wordSimilarity } from '../../src/memory/index.js';

const memory = (id: number, text: string) => ({ id, text, createdAt: new Date(id * 1000) });

describe('memory text', () => {
  it('normalizes case, spacing and final punctuation', () => {
    expect(normalizeMemory('  The user   likes TEA.  ')).toBe('the user likes tea');
    expect(normalizeMemory('Likes tea!!')).toBe(normalizeMemory('likes tea'));
  });

  it('measures word overlap', () => {
    expect(wordSimilarity('Grace lives in Arlington, Virginia', 'grace lives in arlington virginia')).toBe(1);
    expect(wordSimilarity('Grace likes tea', 'Bob likes coffee')).toBeLessThan(0.5);
  });

  it('builds an any-word prefix query from letters and digits only', () => {
    expect(anyWordQuery("what's my cat's name? & | !")).toBe('what:* | my:* | cat:* | name:*');
    expect(anyWordQuery('?! a')).toBeUndefined();
  });

  it('scopes a DM to the user and a group to the group', () => {
    expect(memoryScopeOf({ channel: 'telegram', accountId: 'b', chatId: '42', chatType: 'dm' }, '42')).toBe('dm:telegram:42');
    expect(memoryScopeOf({ channel: 'slack', accountId: 'T1', chatId: 'C1', chatType: 'group' }, 'U1')).toBe('group:slack:T1:C1');
  });
});

describe('selectPromptMemories', () => {
  it('shows all in creation order when they fit, so the section is stable', () => {
    const all = [memory(1, 'one'), memory(2, 'two'), memory(3, 'three')];
    expect(selectPromptMemories(all, [all[2]!], 100)).toEqual(all);
  });

  it('over the budget: the relevant ones first, then the newest, within the budget', () => {
    const all = Array.from({ length: 50 }, (_unused, index) => memory(index + 1, `fact number ${index + 1} about something rather long`));
    const chosen = selectPromptMemories(all, [all[3]!], 60);
    expect(chosen[0]!.id).toBe(4);
    expect(chosen[1]!.id).toBe(50);
    expect(chosen.length).toBeLessThan(all.length);
    expect(chosen.length).toBeGreaterThan(1);
  });
});
