import { describe, expect, it } from 'vitest';
import { statementKind } from '../../src/observability/metrics.js';

describe('statementKind (the database statements counter)', () => {
  it('tells writes, reads and transaction control apart, CTEs by what they do', () => {
    expect(statementKind('insert into runs (id) values ($1)')).toBe('write');
    expect(statementKind('  UPDATE sessions SET title = $1')).toBe('write');
    expect(statementKind('delete from memories where id = $1')).toBe('write');
    expect(statementKind('with batch as (select 1) insert into runs select * from batch')).toBe('write');
    expect(statementKind('with claimed as (update sessions set next_seq = 1 returning id) select * from claimed')).toBe('write');
    expect(statementKind('with session as (select id from sessions where key = $1) select * from session')).toBe('read');
    expect(statementKind('select "updated_at" from "sessions"')).toBe('read');
    expect(statementKind('begin')).toBe('transaction');
    expect(statementKind('COMMIT')).toBe('transaction');
  });

  it('answers a text seen before the same way', () => {
    const read = 'with recent as (select seq from messages) select * from recent';
    const write = 'with inserted as (insert into people (user_id) values ($1) returning 1) select 1';
    for (let round = 0; round < 3; round++) {
      expect(statementKind(read)).toBe('read');
      expect(statementKind(write)).toBe('write');
    }
  });
});
