import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 24: src/redis/ is the one owner of Redis. Nothing else in the service (src/, channels/) imports ioredis
 * (type-only imports included: the RedisClient type comes from src/redis), runs a script (EVAL and kin) or
 * spells a key (a hash tag, a `<prefix>:` key, BullMQ's `bull:`); keys come from KeySpace, scripts from lua/.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const OWNER = 'src/redis/';

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Comments removed (a `//` after a colon, as in a URL, is kept). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
}

function moduleSpecifiers(text: string): string[] {
  const patterns = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s*['"]([^'"]+)['"]/gm];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

const RULES: Array<{ what: string; finds: (text: string) => string[] }> = [
  {
    what: 'imports ioredis',
    finds: (text) => moduleSpecifiers(text).filter((specifier) => specifier === 'ioredis' || specifier.startsWith('ioredis/')),
  },
  {
    what: 'runs a Redis script',
    finds: (text) => [
      ...[...text.matchAll(/\.(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro|defineCommand)\s*\(/g)].map((match) => match[0]),
      ...[...text.matchAll(/['"`](EVAL|EVALSHA|EVAL_RO|EVALSHA_RO|FCALL|FCALL_RO|SCRIPT)['"`]/gi)].map((match) => match[0]),
    ],
  },
  {
    what: 'spells a Redis key',
    finds: (text) => [
      // a hash tag: `{${prefix}:…}` or '{bot:7}…'
      ...[...text.matchAll(/`\{\$\{[\w.]+\}:[^`]*`/g)].map((match) => match[0]),
      ...[...text.matchAll(/['"`]\{[\w-]+:[^'"`\s]*\}/g)].map((match) => match[0]),
      // a key under the queue prefix, or BullMQ's default one
      ...[...text.matchAll(/\$\{(?:[\w]+\.)*(?:prefix|queuePrefix|bullmqPrefix|keyPrefix)\}:/g)].map((match) => match[0]),
      ...[...text.matchAll(/['"`]bull:/g)].map((match) => match[0]),
    ],
  },
];

function violationsIn(text: string): string[] {
  const stripped = code(text);
  return RULES.flatMap((rule) => rule.finds(stripped).map((found) => `${rule.what}: ${found}`));
}

describe('src/redis owns Redis', () => {
  it('the checks find what they look for', () => {
    const found = (text: string) => [...new Set(violationsIn(text).map((violation) => violation.split(':')[0]))];
    expect(found(`import { Redis } from 'ioredis';`)).toEqual(['imports ioredis']);
    expect(found(`import type { Cluster } from "ioredis";`)).toEqual(['imports ioredis']);
    expect(found(`const { Redis } = await import('ioredis');`)).toEqual(['imports ioredis']);
    expect(found(`await redis.eval(script, 1, key);`)).toEqual(['runs a Redis script']);
    expect(found(`await redis.call('EVALSHA', sha, 0);`)).toEqual(['runs a Redis script']);
    expect(found('const key = `{${prefix}:seen}:${id}`;')).toEqual(['spells a Redis key']);
    expect(found('const key = `${this.queuePrefix}:seen:${id}`;')).toEqual(['spells a Redis key']);
    expect(found(`const key = '{bot:7}:sched';`)).toEqual(['spells a Redis key']);
    expect(found(`const key = 'bull:inbound:wait';`)).toEqual(['spells a Redis key']);
    // what is not Redis: a type from src/redis, a comment, a URL, a JSON-like string
    expect(violationsIn(`import type { RedisClient } from '../redis/redis-client.js'; // not from 'ioredis'`)).toEqual([]);
    expect(violationsIn(`/** a { prefix }:key in a comment; import from 'ioredis' */ const url = 'https://example.com/x';`)).toEqual([]);
    expect(violationsIn('const data = `${APPROVAL_ACTION_PREFIX}:${id}`;')).toEqual([]);
    expect(violationsIn('return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(\',\')}}`;')).toEqual([]);
  });

  it('nothing outside src/redis/ in src/ and channels/ imports ioredis, runs a script or names a key', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('channels')];
    const owned = files.filter((file) => file.startsWith(OWNER));
    // the walk reached the tree: the owner itself does all three
    expect(owned.some((file) => violationsIn(readFileSync(join(ROOT, file), 'utf8')).some((found) => found.startsWith('imports ioredis')))).toBe(true);
    const others = files.filter((file) => !file.startsWith(OWNER));
    expect(others.length).toBeGreaterThan(100);
    const violations = others.flatMap((file) => violationsIn(readFileSync(join(ROOT, file), 'utf8')).map((found) => `${file}: ${found}`));
    expect(violations).toEqual([]);
  });
});
