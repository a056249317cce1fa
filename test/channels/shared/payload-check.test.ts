import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createPayloadCheck, Droppable } from '../../../channels/shared/index.js';

const check = createPayloadCheck(
  Type.Object({
    id: Type.Integer(),
    text: Type.Optional(Type.String()),
    name: Droppable(Type.String()),
    author: Droppable(Type.Object({ id: Type.Integer(), nick: Droppable(Type.String()) })),
    tags: Droppable(Type.Array(Type.Object({ key: Type.String() }))),
    chat: Type.Object({ id: Type.Integer(), title: Droppable(Type.String()) }),
  }),
);

describe('createPayloadCheck', () => {
  it('accepts a valid payload as it is, with fields outside the schema', () => {
    const payload = { id: 1, text: 'hi', name: 'Ann', chat: { id: 2 }, unknown: { anything: [1] } };
    expect(check(payload)).toEqual({ ok: true, value: payload, dropped: [] });
  });

  it('refuses a payload whose needed fields are missing or of the wrong type, naming the field', () => {
    expect(check({ id: '1', chat: { id: 2 } })).toEqual({ ok: false, reason: expect.stringContaining('/id') });
    expect(check({ id: 1, text: 5, chat: { id: 2 } })).toEqual({ ok: false, reason: expect.stringContaining('/text') });
    expect(check({ id: 1, chat: { id: {} } })).toEqual({ ok: false, reason: expect.stringContaining('/chat/id') });
    expect(check({ id: 1 })).toEqual({ ok: false, reason: expect.stringContaining('/chat') });
    for (const notAnObject of [null, 'x', 3, [1]]) expect(check(notAnObject).ok).toBe(false);
  });

  it('drops droppable fields of the wrong type, innermost first, and keeps the rest', () => {
    const payload = { id: 1, name: 7, author: { id: 3, nick: ['x'] }, chat: { id: 2, title: null } };
    const result = check(payload);
    expect(result).toEqual({ ok: true, value: { id: 1, author: { id: 3 }, chat: { id: 2 } }, dropped: ['/name', '/author/nick', '/chat/title'] });
    // the caller's object is untouched
    expect(payload.name).toBe(7);
  });

  it('drops a whole droppable object or array when a needed field inside it is wrong', () => {
    const result = check({ id: 1, author: { id: 'three' }, tags: [{ key: 'a' }, { key: 1 }], chat: { id: 2 } });
    expect(result).toEqual({ ok: true, value: { id: 1, chat: { id: 2 } }, dropped: ['/author', '/tags'] });
  });

  it('still refuses when a needed field is wrong beside droppable ones', () => {
    expect(check({ id: 1, name: 7, chat: { id: 'x' } })).toEqual({ ok: false, reason: expect.stringContaining('/chat/id') });
  });
});
