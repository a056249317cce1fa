// The production build `npm start` runs: esbuild bundles the CLI and what it imports into dist/bundle/ (one file
// per entry point, plus a chunk per lazily imported part: a platform's SDK, MCP, the console…), so the process
// resolves and parses no package at run time. Kept external: what loads files relative to its own package
// (PGlite's wasm, bull-board's UI, pino's transport worker) and native addons.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const defaultOutdir = join(root, 'dist/bundle');

export const EXTERNAL = [
  '@electric-sql/pglite',
  '@bull-board/*',
  'pino',
  'pino-pretty',
  'thread-stream',
  'msgpackr-extract',
  'unpdf',
  'playwright-core',
  // grammY's fetch: node leaves deprecation warnings of code under node_modules unsaid (punycode, url.parse),
  // not of code bundled into ours
  'node-fetch',
];

/** Bundles into `outdir` (dist/bundle unless told; it must sit two folders below the package, beside dist/, to find drizzle/). */
export async function bundle(outdir = defaultOutdir) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    // pglite-initdb runs as its own process (src/store/pglite-database.ts finds it beside the chunk that spawns it)
    entryPoints: { cli: join(root, 'src/cli.ts'), 'pglite-initdb': join(root, 'src/store/pglite-initdb.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: EXTERNAL,
    alias: { 'abort-controller': join(root, 'scripts/native-abort-controller.cjs') },
    sourcemap: 'linked',
    legalComments: 'none',
    // libraries compare constructor names (node-fetch's AbortSignal check); esbuild would rename colliding classes
    keepNames: true,
    // V8 keeps every loaded script's source for lazy compilation: comments and indentation would stay resident
    // (the Lark SDK alone is 6 MB of API documentation), so they go; identifiers stay readable in stack traces
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    // CommonJS packages inside an ES module bundle call require() for node's built-ins and name their own file
    banner: {
      js: [
        "import { createRequire as __bundleCreateRequire } from 'node:module';",
        "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
        "import { dirname as __bundleDirname } from 'node:path';",
        'const require = __bundleCreateRequire(import.meta.url);',
        'const __filename = __bundleFileURLToPath(import.meta.url);',
        'const __dirname = __bundleDirname(__filename);',
      ].join(' '),
    },
  });
  // the Lua scripts are read at run time (src/redis/lua-source.ts finds them beside the bundle); the migrations
  // are found in the package's drizzle/ folder above it
  mkdirSync(join(outdir, 'lua'), { recursive: true });
  cpSync(join(root, 'src', 'redis', 'lua'), join(outdir, 'lua'), { recursive: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle(process.argv[2] ? resolve(process.argv[2]) : undefined);
