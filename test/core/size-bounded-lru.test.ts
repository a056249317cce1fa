import { describe, expect, it } from 'vitest';
import { SizeBoundedLru } from '../../src/core/size-bounded-lru.js';

describe('SizeBoundedLru', () => {
  it('drops the least recently used entries once over its bytes, and keeps the count of them', () => {
    const lru = new SizeBoundedLru<string>(30);
    lru.set('a', 'A', 10);
    lru.set('b', 'B', 10);
    lru.set('c', 'C', 10);
    expect(lru.get('a')).toBe('A');
    lru.set('d', 'D', 10);
    expect(lru.peek('b')).toBeUndefined();
    expect([lru.peek('a'), lru.peek('c'), lru.peek('d')]).toEqual(['A', 'C', 'D']);
    expect(lru.bytes).toBe(30);
    // the order is now c, a, d (peek moved nothing): twenty more bytes drop c and a
    lru.set('e', 'E', 20);
    expect([lru.peek('c'), lru.peek('a'), lru.peek('d'), lru.peek('e')]).toEqual([undefined, undefined, 'D', 'E']);
    expect([lru.size, lru.bytes]).toEqual([2, 30]);
  });

  it('peek leaves the order alone; a value set again takes its new size', () => {
    const lru = new SizeBoundedLru<string>(20);
    lru.set('a', 'A', 10);
    lru.set('b', 'B', 10);
    expect(lru.peek('a')).toBe('A');
    lru.set('b', 'B2', 5);
    expect(lru.bytes).toBe(15);
    lru.set('c', 'C', 10);
    expect([lru.peek('a'), lru.peek('b'), lru.peek('c')]).toEqual([undefined, 'B2', 'C']);
  });

  it('keeps an entry larger than the bound alone, and forgets on delete and clear', () => {
    const lru = new SizeBoundedLru<string>(10);
    lru.set('a', 'A', 5);
    lru.set('big', 'BIG', 50);
    expect([lru.peek('a'), lru.peek('big'), lru.size]).toEqual([undefined, 'BIG', 1]);
    lru.delete('big');
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
    lru.set('a', 'A', 5);
    lru.clear();
    expect([lru.size, lru.bytes, lru.get('a')]).toEqual([0, 0, undefined]);
  });
});
