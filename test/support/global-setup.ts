import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** End-to-end tests drive the built service (`node dist/src/cli.js start`), exactly as `npm start` runs it. */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
}
