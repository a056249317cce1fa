import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE_MAJOR } from '../../src/cli/node-version.js';
import { CLI } from '../support/service-process.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The machine's own Node (Debian's), older than the service needs; the suite itself runs on a newer one. */
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const oldNodeMajor = Number(/^v(\d+)/.exec(oldNodeVersion)?.[1] ?? Number.NaN);
const haveOldNode = oldNodeMajor < MINIMUM_NODE_MAJOR;
const REFUSAL = new RegExp(
  `^chatbot-service needs Node\\.js ${MINIMUM_NODE_MAJOR} or later, and this is Node\\.js ${oldNodeVersion.slice(1).replaceAll('.', '\\.')} \\(${OLD_NODE}\\): install Node\\.js 24 LTS .*\\n$`,
);

describe('an unsupported Node', () => {
  it('is the one package.json names', () => {
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    expect(engines).toBe(`>=${MINIMUM_NODE_MAJOR}`);
  });

  // skipped, saying so in its name, where the machine has no Node older than the minimum at /usr/bin/node
  const needsOldNode = haveOldNode ? `${OLD_NODE} is ${oldNodeVersion}` : `SKIPPED: ${OLD_NODE} is ${oldNodeVersion || 'missing'}, not older than ${MINIMUM_NODE_MAJOR}`;

  it.skipIf(!haveOldNode)(`is refused by the CLI in one line, exit code 1, before anything starts (${needsOldNode})`, () => {
    for (const command of ['start', 'doctor', 'migrate']) {
      const run = spawnSync(OLD_NODE, [CLI, command], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', DATA_DIR: '/nonexistent/never-created' }, timeout: 20_000 });
      expect({ command, status: run.status, stdout: run.stdout }).toEqual({ command, status: 1, stdout: '' });
      expect(run.stderr).toMatch(REFUSAL);
    }
    expect(existsSync('/nonexistent/never-created')).toBe(false);
  });

  it.skipIf(!haveOldNode)(`is refused by \`npm start\`'s build step too, before it builds (${needsOldNode})`, () => {
    const run = spawnSync(OLD_NODE, [join(ROOT, 'scripts', 'build-if-needed.mjs')], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(REFUSAL);
  });
});
