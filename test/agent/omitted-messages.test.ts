import { describe, expect, it } from 'vitest';
import { omittedMessageNote, withOmittedAsNotes } from '../../src/agent/index.js';
import { assistantText, userText, type ChatMessage } from '../../src/core/chat-message.js';

const stored = (message: ChatMessage, seq: number, omittedFromContext = false) => ({ ...message, seq, omittedFromContext });

describe('messages left out of the context', () => {
  it('a refused user message becomes a short note with its size; the rest of its turn is dropped; other fields stay', () => {
    const huge = 'x'.repeat(40_000);
    const history = [
      stored(userText('hello'), 0),
      stored(assistantText('hi'), 1),
      stored(userText(huge), 2, true),
      stored({ role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{}' }] }, 3, true),
      stored({ role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', name: 'read_file', content: 'y', isError: false }] }, 4, true),
      stored(userText('next'), 5),
    ];
    const shown = withOmittedAsNotes(history);
    expect(shown.map((message) => message.seq)).toEqual([0, 1, 2, 5]);
    expect(shown[2]!.parts).toEqual([{ type: 'text', text: omittedMessageNote(40_000) }]);
    expect(omittedMessageNote(40_000)).toContain('40,000 characters');
    expect(JSON.stringify(shown)).not.toContain(huge);
  });

  it('a history without left-out messages is returned as it is', () => {
    const history = [stored(userText('a'), 0), stored(assistantText('b'), 1)];
    expect(withOmittedAsNotes(history)).toBe(history);
  });
});
