import { describe, expect, it } from 'vitest';
import { SessionCache, type HistoryMessage } from '../../src/turn/session-cache.js';

const text = (value: string, role: 'user' | 'assistant' = 'user'): HistoryMessage => ({ role, parts: [{ type: 'text', text: value }] });
const session = (version: string, history: HistoryMessage[] = [text('hi'), text('hello', 'assistant')]) => ({ sessionId: 's1', summary: undefined, history, version });

describe('SessionCache', () => {
  it('answers only at the version it was read at, never at an unknown one', () => {
    const cache = new SessionCache(1_000_000, 500);
    cache.put('a', session('v1'));
    expect(cache.get('a', 'v1')?.history).toHaveLength(2);
    expect(cache.get('a', 'v2')).toBeUndefined();
    expect(cache.get('a', undefined)).toBeUndefined();
    cache.put('b', session(''));
    expect(cache.get('b', '')).toBeUndefined();
  });

  it('appends a turn’s stored messages when its release shows nobody else wrote, and moves to the new version', () => {
    const cache = new SessionCache(1_000_000, 3);
    cache.put('a', session('v1'));
    cache.stage('t1', 'a', 'v1', [text('again'), text('sure', 'assistant')]);
    cache.settle('t1', 'a', 'v1', 'v2');
    const entry = cache.get('a', 'v2');
    // the newest messages, at most as many as a read would load
    expect(entry?.history.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['hello', 'again', 'sure']);
    expect(cache.get('a', 'v1')).toBeUndefined();
  });

  it('drops an entry another process wrote past: a release from another version than the entry’s', () => {
    const cache = new SessionCache(1_000_000, 500);
    cache.put('a', session('v1'));
    cache.stage('t1', 'a', 'v1', [text('again')]);
    // another turn (another process) stored meanwhile: the release moves from v7, not from v1
    cache.settle('t1', 'a', 'v7', 'v8');
    expect(cache.get('a', 'v8')).toBeUndefined();
    expect(cache.get('a', 'v1')).toBeUndefined();
  });

  it('stays under its byte budget by dropping the least recently used sessions', () => {
    const big = (index: number) => session(`v${index}`, [text('x'.repeat(1_000))]);
    const cache = new SessionCache(5_000, 500);
    for (let index = 0; index < 4; index++) cache.put(`s${index}`, big(index));
    expect(cache.bytes).toBeLessThanOrEqual(5_000);
    expect(cache.size).toBe(2);
    // the oldest went first
    expect(cache.get('s0', 'v0')).toBeUndefined();
    expect(cache.get('s3', 'v3')).toBeDefined();
  });
});
