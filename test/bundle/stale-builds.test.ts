import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markTscBuilt, staleBuilds } from '../../scripts/stale-builds.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function projectWithOneSource(): { root: string; source: string } {
  const root = mkdtempSync(join(tmpdir(), 'stale-builds-'));
  roots.push(root);
  mkdirSync(join(root, 'src'));
  const source = join(root, 'src/main.ts');
  writeFileSync(source, 'export {};\n');
  const past = new Date(Date.now() - 60_000);
  utimesSync(source, past, past);
  return { root, source };
}

describe('staleBuilds', () => {
  it("calls the tsc output stale after a type check that only rewrote tsc's build-info file", () => {
    const { root } = projectWithOneSource();
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist/.tsbuildinfo'), '{}');
    expect(staleBuilds(root).tsc).toBe(true);
  });

  it('calls the tsc output fresh once an emitting run is marked, and stale again when a source changes', () => {
    const { root, source } = projectWithOneSource();
    markTscBuilt(root);
    expect(staleBuilds(root).tsc).toBe(false);
    const later = new Date(Date.now() + 60_000);
    utimesSync(source, later, later);
    expect(staleBuilds(root).tsc).toBe(true);
  });
});
