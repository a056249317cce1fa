import { describe, expect, it } from 'vitest';
import { couldBeSilentReply, finalizeReply, isSilentReply, stripSilentToken } from '../../src/agent/index.js';

describe('silent replies', () => {
  it.each([
    'NO_REPLY',
    'no_reply.',
    '"NO_REPLY"',
    '**NO_REPLY**',
    'NO_REPLY: user is away',
    '  `NO_REPLY`  ',
    '_no_reply_',
    '[NO_REPLY]',
    '(NO_REPLY)',
    'No_Reply!',
    '“NO_REPLY”',
    'NO_REPLY - nothing to add',
  ])('%j is silent', (text) => {
    expect(isSilentReply(text)).toBe(true);
  });

  it.each(['NO_REPLYING', 'NO_REPLY2', 'Sure, NO_REPLY is a token', 'Here you go. NO_REPLY', '', 'No reply needed?', 'NOREPLY'])('%j is not silent', (text) => {
    expect(isSilentReply(text)).toBe(false);
  });

  it.each([
    ['Here you go. NO_REPLY', 'Here you go.'],
    ['Done!\n\nNO_REPLY', 'Done!'],
    ['All set **NO_REPLY**', 'All set'],
    ['Saved. `no_reply`.', 'Saved.'],
    ['Sure, NO_REPLY is a token', 'Sure, NO_REPLY is a token'],
    ['I am NOT_NO_REPLY', 'I am NOT_NO_REPLY'],
    ['Plain answer', 'Plain answer'],
  ])('stripSilentToken(%j) → %j', (input, expected) => {
    expect(stripSilentToken(input)).toBe(expected);
  });

  it('finalizeReply sanitizes, then decides silence, then strips a trailing token', () => {
    expect(finalizeReply('<think>nobody asked me</think>\nNO_REPLY')).toEqual({ text: '', silent: true });
    expect(finalizeReply('<think>x</think>Here you go. NO_REPLY')).toEqual({ text: 'Here you go.', silent: false });
    expect(finalizeReply('Hello!')).toEqual({ text: 'Hello!', silent: false });
  });

  it.each([
    ['', true],
    ['N', true],
    ['no_', true],
    ['**NO_REP', true],
    ['NO_REPLY', true],
    ['NO_REPLY: away', true],
    ['Nope', false],
    ['Hello', false],
    ['NO_REPLYING', false],
  ])('while streaming, %j could still be silent: %s', (partial, expected) => {
    expect(couldBeSilentReply(partial)).toBe(expected);
  });
});
