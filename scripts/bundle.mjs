// The production build `npm start` runs: esbuild bundles the CLI and what it imports into dist/bundle/ (one file
// per entry point, plus a chunk per lazily imported part: a platform's SDK, MCP, the console…), so the process
// resolves and parses no package at run time. Kept external: what loads files relative to its own package
// (PGlite's wasm, bull-board's UI, pino's transport worker) and native addons.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const outdir = join(root, 'dist/bundle');

export const EXTERNAL = [
  '@electric-sql/pglite',
  '@bull-board/*',
  'pino',
  'pino-pretty',
  'thread-stream',
  'msgpackr-extract',
  'unpdf',
  'playwright-core',
];

export async function bundle() {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { cli: join(root, 'src/cli.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: EXTERNAL,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS packages inside an ES module bundle call require() for node's built-ins
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  // Lua scripts and migrations are read at run time; the bundle finds them beside itself
  for (const folder of ['redis', 'budgets']) {
    mkdirSync(join(outdir, folder), { recursive: true });
    cpSync(join(root, 'src', folder, 'lua'), join(outdir, 'lua', folder === 'redis' ? '' : folder), { recursive: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle();
