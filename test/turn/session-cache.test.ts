import { describe, expect, it } from 'vitest';
import { SessionCache, type HistoryMessage } from '../../src/turn/session-cache.js';

const text = (value: string, role: 'user' | 'assistant' = 'user'): HistoryMessage => ({ role, parts: [{ type: 'text', text: value }] });
const session = (version: string, history: HistoryMessage[] = [text('hi'), text('hello', 'assistant')], conversation = 0) => ({ sessionId: 's1', summary: undefined, history, version, conversation });

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

  it('never answers a turn of another conversation', () => {
    const cache = new SessionCache(1_000_000, 500);
    cache.put('a', session('v1', undefined, 2));
    expect(cache.get('a', 'v1', 2)?.conversation).toBe(2);
    expect(cache.get('a', 'v1')?.conversation).toBe(2);
    expect(cache.get('a', 'v1', 3)).toBeUndefined();
  });

  it('holds a turn’s stored messages at the version its release writes before the release goes out', () => {
    const cache = new SessionCache(1_000_000, 3);
    cache.put('a', session('v1'));
    cache.stage('t1', 'a', 'v1', [text('again'), text('sure', 'assistant')]);
    cache.releasing('t1', 'a', 'v2');
    // a turn claimed on v2 the moment Redis has it, before this release's reply is back, finds the history
    const entry = cache.get('a', 'v2');
    // the newest messages, at most as many as a read would load
    expect(entry?.history.map((message) => (message.parts[0] as { text: string }).text)).toEqual(['hello', 'again', 'sure']);
    expect(cache.get('a', 'v1')).toBeUndefined();
    cache.released('a', 'v2', 'v2');
    expect(cache.get('a', 'v2')).toBeDefined();
  });

  it('drops the entry when the release wrote another version than the turn’s (somebody wrote in between) or was lost', () => {
    const cache = new SessionCache(1_000_000, 500);
    cache.put('a', session('v1'));
    cache.stage('t1', 'a', 'v1', [text('again')]);
    cache.releasing('t1', 'a', 'v2');
    cache.released('a', 'v2', 'v2~');
    expect(cache.size).toBe(0);
    cache.put('b', session('v1'));
    cache.stage('t2', 'b', 'v1', [text('again')]);
    cache.releasing('t2', 'b', 'v2');
    cache.released('b', 'v2', undefined);
    expect(cache.size).toBe(0);
  });

  it('forgets an entry that is not at the turn’s base, or a turn that staged nothing, as the release moves on', () => {
    const cache = new SessionCache(1_000_000, 500);
    // another turn of this group session moved the entry on since this one began at v1
    cache.put('a', session('v5'));
    cache.stage('t1', 'a', 'v1', [text('again')]);
    cache.releasing('t1', 'a', 'v6');
    expect(cache.get('a', 'v6')).toBeUndefined();
    expect(cache.get('a', 'v5')).toBeUndefined();
    // a resumed turn whose messages another attempt stored: nothing staged here
    cache.put('b', session('v1'));
    cache.releasing('t2', 'b', 'v2');
    expect(cache.size).toBe(0);
    // a turn that wrote nothing leaves the entry as it is
    cache.put('c', session('v1'));
    cache.releasing('t3', 'c', undefined);
    expect(cache.get('c', 'v1')).toBeDefined();
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
