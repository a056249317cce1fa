import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
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
export default function setup(project: TestProject): () => void {
  // one line up front; each test file that drives a missing program fails with the same line (requireSystemPackages)
  const missing = missingSystemPackages();
  if (missing.length > 0) process.stderr.write(`${missingPackagesLine(missing)}\n`);
  const root = join(import.meta.dirname, '..', '..');
  // a dependency's upgrade (package-lock.json) and the build settings count as sources too
  const settings = (...names: string[]) => names.map((name) => join(root, name));
  if (isStale(join(root, 'dist/src/cli.js'), ['src', 'channels', 'bench', 'soak', 'test'].map((folder) => join(root, folder)), ['.ts'], settings('tsconfig.json', 'package-lock.json'))) {
    const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
      encoding: 'utf8',
    });
    if (result.status !== 0) process.stderr.write(`tsc reported errors (the build was emitted anyway):\n${result.stdout}\n`);
  }
  if (isStale(join(root, 'dist/bundle/cli.js'), ['src', 'channels'].map((folder) => join(root, folder)), ['.ts', '.lua'], settings('scripts/bundle.mjs', 'package-lock.json'))) {
    const result = spawnSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bundling failed (scripts/bundle.mjs):\n${result.stdout}${result.stderr}`);
  }

  const pgliteTemplate = join(root, 'dist/pglite-template');
  const initdbScript = join(root, 'dist/src/store/pglite-initdb.js');
  if (isStale(join(pgliteTemplate, 'pglite/PG_VERSION'), [join(root, 'drizzle')], ['.sql', '.json'], [initdbScript, join(root, 'dist/src/store/migrate.js'), join(root, 'package-lock.json')])) {
    buildPgliteTemplate(initdbScript, pgliteTemplate);
  }
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

/** Runs the service's own initdb (src/store/pglite-initdb.ts: initdb and every migration) into `template`/pglite. */
function buildPgliteTemplate(initdbScript: string, template: string): void {
  // built beside it and renamed into place, so a run that stops half-way leaves no half-made template
  const building = mkdtempSync(`${template}-building-`);
  const result = spawnSync(process.execPath, [initdbScript, join(building, 'pglite')], { encoding: 'utf8' });
  if (result.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`creating the PGlite template failed (${initdbScript}):\n${result.stdout}${result.stderr}`);
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

/** Whether `output` is missing, or older than a file under `folders` whose name ends with one of `suffixes`, or than one of `files`. */
function isStale(output: string, folders: string[], suffixes: string[], files: string[]): boolean {
  if (!existsSync(output)) return true;
  const builtAt = statSync(output).mtimeMs;
  return files.some((file) => existsSync(file) && statSync(file).mtimeMs >= builtAt) || folders.some((folder) => newestFile(folder, suffixes) >= builtAt);
}

/** The newest modification time of the files under `directory` whose name ends with one of `suffixes`. */
function newestFile(directory: string, suffixes: string[]): number {
  if (!existsSync(directory)) return 0;
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newestFile(path, suffixes));
    else if (suffixes.some((suffix) => entry.name.endsWith(suffix))) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}
