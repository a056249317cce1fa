import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { isStale, markTscBuilt, staleBuilds } from '../../scripts/stale-builds.mjs';
import { missingPackagesLine, missingSystemPackages } from './system-packages.js';

/**
 * End-to-end tests drive the built service exactly as `npm start` runs it: the esbuild bundle
 * (`node dist/bundle/cli.js start`, scripts/bundle.mjs). A start of it costs about a quarter of the CPU of a start
 * of the tsc output (which resolves some 3,500 modules, and parses drizzle-orm's 137 KB exports map once for each
 * of its files), and the suite starts the service some hundreds of times. The tsc output is still built: unit
 * tests spawn helpers from it (pglite-initdb). Each is built only when a source is newer than it (`npm test` has
 * just run tsc). Type errors do not stop the build here (tsc still emits); `npm test` type-checks strictly before vitest.
 * The fault suite's scenarios append their verdicts to one file; the summary table is printed at the end.
 * System packages the tests drive (Chromium, bubblewrap…) that are missing are named first, in one line.
 * One migrated PGlite data directory is kept as a template (dist/pglite-template/, rebuilt when a migration, the
 * initdb script or a dependency changes): a store test copies it (0.1 s) instead of running initdb (~10 s of CPU).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // one line up front; each test file that drives a missing program fails with the same line (requireSystemPackages)
  const missing = missingSystemPackages();
  if (missing.length > 0) process.stderr.write(`${missingPackagesLine(missing)}\n`);
  const root = join(import.meta.dirname, '..', '..');
  // the rule `npm start` builds by too (scripts/stale-builds.mjs)
  const stale = staleBuilds(root);
  if (stale.tsc) {
    const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
      encoding: 'utf8',
    });
    if (result.status !== 0) process.stderr.write(`tsc reported errors (the build was emitted anyway):\n${result.stdout}\n`);
    markTscBuilt(root);
  }
  // the bundle and the template (from the tsc output) side by side: on a fresh clone each is some seconds of one core
  const pgliteTemplate = join(root, 'dist/pglite-template');
  const initdbScript = join(root, 'dist/src/store/pglite-initdb.js');
  await Promise.all([
    stale.bundle ? run([join(root, 'scripts/bundle.mjs')], 'bundling failed (scripts/bundle.mjs)') : undefined,
    isStale(join(pgliteTemplate, 'pglite/PG_VERSION'), [join(root, 'drizzle')], ['.sql', '.json'], [initdbScript, join(root, 'dist/src/store/migrate.js'), join(root, 'package-lock.json')])
      ? buildPgliteTemplate(initdbScript, pgliteTemplate)
      : undefined,
  ]);
  project.provide('pgliteTemplate', pgliteTemplate);

  const summaryFile = join(tmpdir(), `bot-fault-summary-${process.pid}.jsonl`);
  rmSync(summaryFile, { force: true });
  project.provide('faultSummaryFile', summaryFile);
  return () => {
    if (!existsSync(summaryFile)) return;
    printFaultSummary(readFileSync(summaryFile, 'utf8'));
    rmSync(summaryFile, { force: true });
  };
}

/** Runs a node script to its end; a non-zero exit throws `failure` with what it printed. */
function run(args: string[], failure: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${failure}:\n${output}`))));
  });
}

/** Runs the service's own initdb (src/store/pglite-initdb.ts: initdb and every migration) into `template`/pglite. */
async function buildPgliteTemplate(initdbScript: string, template: string): Promise<void> {
  // built beside it and renamed into place, so a run that stops half-way leaves no half-made template
  const building = mkdtempSync(`${template}-building-`);
  try {
    await run([initdbScript, join(building, 'pglite')], `creating the PGlite template failed (${initdbScript})`);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  rmSync(template, { recursive: true, force: true });
  renameSync(building, template);
}

function printFaultSummary(lines: string): void {
  const rows = lines
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, string | number>);
  const columns = ['scenario', 'messagesIn', 'answered', 'deliberatelyNot', 'duplicates', 'lost'];
  const headers = ['scenario', 'messages in', 'answered', 'deliberately not', 'duplicates', 'lost'];
  const widths = columns.map((column, index) => Math.max(headers[index]!.length, ...rows.map((row) => String(row[column]).length)));
  const format = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
  const output = [
    '',
    'Fault suite summary',
    format(headers),
    format(widths.map((width) => '-'.repeat(width))),
    ...rows.map((row) => format(columns.map((column) => String(row[column])))),
    '',
  ];
  process.stdout.write(`${output.join('\n')}\n`);
}
