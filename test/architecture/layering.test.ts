// The house's shape as a test: imports run down the layers, folders form no cycle, files form no
// cycle, and platform SDKs stay inside their channel. The graph is read from the source text
// (import-graph.ts), so the check needs no build and sees `import type` too.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleOf, readImportGraph, type ImportEdge } from './import-graph.js';
import { stronglyConnected } from './cycles.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Lowest first; a module may import its own layer's peers (without a cycle) and anything below.
 * core: shared types and ports · llm: model wire APIs · agent: the pure loop and its tools ·
 * store/redis: storage adapters · features built on the loop · config: the schema that names every
 * feature's settings · chat-facing services · turn: one turn · queue: the worker that runs turns ·
 * the edge (HTTP, channels) · app: role builders · cli: commands.
 */
const LAYERS: string[][] = [
  ['src/core', 'src/observability'],
  ['src/llm'],
  ['src/agent'],
  ['src/store', 'src/redis', 'src/lifecycle'],
  ['src/media', 'src/mcp', 'src/memory', 'src/workspace', 'src/approvals', 'src/budgets'],
  ['src/config'],
  ['src/access', 'src/commands', 'src/usage'],
  ['src/turn'],
  ['src/queue'],
  ['src/schedules', 'src/agent-runtimes.ts'],
  ['channels/shared'],
  ['channels/telegram', 'channels/slack', 'channels/feishu'],
  ['channels/index.ts', 'src/gateway'],
  ['src/app'],
  ['src/cli', 'src/cli.ts'],
];

/** Packages only a channel's own folder may import. */
const PLATFORM_SDKS = [/^grammy$/, /^@grammyjs\//, /^@slack\//, /^@larksuiteoapi\//];

/** Arrows that still run the wrong way, each with the reason it is tolerated. Keep this empty. */
const ALLOWED: Array<{ from: string; to: string; reason: string }> = [];

const edges = readImportGraph(root, ['src', 'channels']);
const moduleEdges = edges.filter((edge) => !edge.isPackage && moduleOf(edge.from) !== moduleOf(edge.to));

function layerOf(module: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(module));
  if (index < 0) throw new Error(`${module} has no layer: add it to LAYERS in test/architecture/layering.test.ts`);
  return index;
}

function allowed(edge: ImportEdge): boolean {
  return ALLOWED.some((entry) => entry.from === moduleOf(edge.from) && entry.to === moduleOf(edge.to));
}

function arrow(edge: ImportEdge): string {
  return `${edge.from} → ${edge.to}${edge.typeOnly ? ' (type)' : ''}`;
}

describe('the import graph of src/ and channels/', () => {
  it('reads imports, type imports, re-exports and dynamic imports', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((edge) => edge.typeOnly)).toBe(true);
    expect(edges.some((edge) => edge.to === 'channels/slack/index.ts' && edge.from === 'channels/index.ts')).toBe(true);
  });

  it('resolves every relative import to a file (a misread import would hide an arrow)', () => {
    const unresolved = edges.filter((edge) => !edge.isPackage && !existsSync(join(root, edge.to)));
    expect(unresolved.map(arrow)).toEqual([]);
  });

  it('has every module in a layer', () => {
    const modules = new Set(edges.flatMap((edge) => [moduleOf(edge.from), ...(edge.isPackage ? [] : [moduleOf(edge.to)])]));
    for (const module of modules) expect(() => layerOf(module)).not.toThrow();
  });

  it('runs no import from a lower layer up to a higher one', () => {
    const upward = moduleEdges.filter((edge) => layerOf(moduleOf(edge.from)) < layerOf(moduleOf(edge.to)) && !allowed(edge));
    if (upward.length > 0) console.error(`imports running up a layer:\n  ${upward.map(arrow).join('\n  ')}`);
    expect(upward.map(arrow)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of moduleEdges) {
      if (allowed(edge)) continue;
      const targets = graph.get(moduleOf(edge.from)) ?? new Set<string>();
      graph.set(moduleOf(edge.from), targets.add(moduleOf(edge.to)));
    }
    const cycles = stronglyConnected(graph).map((members) => {
      const inside = moduleEdges.filter((edge) => members.includes(moduleOf(edge.from)) && members.includes(moduleOf(edge.to)));
      return `${members.join(' ↔ ')}:\n    ${inside.map(arrow).join('\n    ')}`;
    });
    if (cycles.length > 0) console.error(`folder cycles:\n  ${cycles.join('\n  ')}`);
    expect(cycles).toEqual([]);
  });

  it('has no cycle between files, type imports included', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      if (edge.isPackage) continue;
      graph.set(edge.from, (graph.get(edge.from) ?? new Set<string>()).add(edge.to));
    }
    const cycles = stronglyConnected(graph).map((members) => members.join(' ↔ '));
    if (cycles.length > 0) console.error(`file cycles:\n  ${cycles.join('\n  ')}`);
    expect(cycles).toEqual([]);
  });

  it('imports platform SDKs only inside channels/<name>/', () => {
    const leaks = edges.filter((edge) => {
      if (!edge.isPackage || !PLATFORM_SDKS.some((sdk) => sdk.test(edge.to))) return false;
      const module = moduleOf(edge.from);
      return !/^channels\/(telegram|slack|feishu)$/.test(module);
    });
    if (leaks.length > 0) console.error(`platform SDKs outside their channel:\n  ${leaks.map(arrow).join('\n  ')}`);
    expect(leaks.map(arrow)).toEqual([]);
  });
});
