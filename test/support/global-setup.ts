import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { missingPackagesLine, missingSystemPackages } from './system-packages.js';

/**
 * End-to-end tests drive the built service (`node dist/src/cli.js start`), exactly as `npm start` runs it.
 * Type errors do not stop the build here (tsc still emits); `npm test` type-checks strictly before vitest.
 * The fault suite's scenarios append their verdicts to one file; the summary table is printed at the end.
 * System packages the tests drive (Chromium, bubblewrap…) that are missing are named first, in one line.
 */
export default function setup(project: TestProject): () => void {
  // one line up front; each test file that drives a missing program fails with the same line (requireSystemPackages)
  const missing = missingSystemPackages();
  if (missing.length > 0) process.stderr.write(`${missingPackagesLine(missing)}\n`);
  const root = join(import.meta.dirname, '..', '..');
  const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
    encoding: 'utf8',
  });
  if (result.status !== 0) process.stderr.write(`tsc reported errors (the build was emitted anyway):\n${result.stdout}\n`);

  const summaryFile = join(tmpdir(), `bot-fault-summary-${process.pid}.jsonl`);
  rmSync(summaryFile, { force: true });
  project.provide('faultSummaryFile', summaryFile);
  return () => {
    if (!existsSync(summaryFile)) return;
    printFaultSummary(readFileSync(summaryFile, 'utf8'));
    rmSync(summaryFile, { force: true });
  };
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
