import { describe, expect, it } from 'vitest';
import { conversationTitle, CONVERSATION_TITLE_MAX_CHARS, firstExchangeTitle } from '../../src/turn/conversation-title.js';
import type { OpenedSession } from '../../src/turn/turn-store.js';
import { inboundMessage } from '../support/messages.js';

const fresh: OpenedSession = { id: Promise.resolve('s'), summary: undefined, history: [], conversation: 0 };

describe('a conversation\u2019s title from its first exchange', () => {
  it('is the user\u2019s first line, whitespace collapsed', () => {
    expect(conversationTitle('\n  How do I   rotate\tmy keys?\nMore detail here', 'Like this.')).toBe('How do I rotate my keys?');
  });

  it('is cut at a word within the bound, with an ellipsis', () => {
    const title = conversationTitle('Please compare the three deployment shapes we discussed yesterday and tell me which one is cheapest', '')!;
    expect(title.length).toBeLessThanOrEqual(CONVERSATION_TITLE_MAX_CHARS);
    expect(title).toBe('Please compare the three deployment shapes we discussed…');
    // one long word: cut inside it
    expect(conversationTitle('x'.repeat(200), '')).toBe(`${'x'.repeat(CONVERSATION_TITLE_MAX_CHARS - 1)}…`);
  });

  it('falls back on the answer\u2019s first line without Markdown marks, and is undefined when both are empty', () => {
    expect(conversationTitle('  ', '## **Invoice summary**\n\n- one')).toBe('Invoice summary');
    expect(conversationTitle('', ' \n ')).toBeUndefined();
  });

  it('is given only to a titled conversation, at its first exchange, when there is an answer', () => {
    const titled = [inboundMessage({ text: 'first question', titled: true }), inboundMessage({ text: 'second', titled: true })];
    expect(firstExchangeTitle(titled, fresh, 'answer')).toBe('first question');
    expect(firstExchangeTitle([inboundMessage({ text: 'plain DM' })], fresh, 'answer')).toBeUndefined();
    expect(firstExchangeTitle(titled, fresh, '')).toBeUndefined();
    expect(firstExchangeTitle(titled, { ...fresh, history: [{ role: 'user', parts: [{ type: 'text', text: 'earlier' }] }] }, 'answer')).toBeUndefined();
    expect(firstExchangeTitle(titled, { ...fresh, conversation: 1 }, 'answer')).toBeUndefined();
    expect(firstExchangeTitle(titled, { ...fresh, summary: 'so far' }, 'answer')).toBeUndefined();
  });
});
