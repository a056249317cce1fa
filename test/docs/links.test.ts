import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, deadLinks, githubSlug } from './markdown-links.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'bench/HISTORY.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('links between the manual\u2019s pages', () => {
  it.each(pages)('%s has no dead relative link and no missing anchor', (page) => {
    expect(deadLinks(join(root, page))).toEqual([]);
  });

  it('makes anchors the way GitHub does', () => {
    expect(githubSlug('Sub-agents (`spawn_agent`)')).toBe('sub-agents-spawn_agent');
    expect(githubSlug('Delivery: exactly once, and what is left')).toBe('delivery-exactly-once-and-what-is-left');
    expect(githubSlug('Redis & PostgreSQL down?')).toBe('redis--postgresql-down');
    expect([...anchorsOf('# Setup\n\n## Setup\n\n```\n# not a heading\n```\n')]).toEqual(['setup', 'setup-1']);
  });

  it('finds a dead file, a missing anchor, and ignores code and outside addresses', () => {
    const folder = mkdtempSync(join(tmpdir(), 'links-'));
    writeFileSync(join(folder, 'other.md'), '# Other page\n');
    const page = join(folder, 'page.md');
    const text = [
      '# Page',
      '[ok](other.md#other-page) [self](#page) [web](https://example.com/x#y)',
      '[gone](missing.md) [no anchor](other.md#nothing) [no self anchor](#nope)',
      '`[in code](missing.md)`',
      '```',
      '[in a block](missing.md)',
      '```',
    ].join('\n');
    writeFileSync(page, text);
    expect(deadLinks(page)).toEqual([
      'line 3: missing.md (no such file)',
      'line 3: other.md#nothing (no heading with that anchor)',
      'line 3: #nope (no heading with that anchor)',
    ]);
  });
});
