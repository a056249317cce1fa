// The production build `npm start` runs: esbuild bundles the CLI and what it imports into dist/bundle/ (one file
// per entry point, plus a chunk per lazily imported part: a platform's SDK, MCP, the console…), so the process
// resolves and parses no package at run time. Kept external: what loads files relative to its own package
// (PGlite's wasm, bull-board's UI, pino's transport worker) and native addons.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  'koffi',
  'unpdf',
  'playwright-core',
  // grammY's fetch: node leaves deprecation warnings of code under node_modules unsaid (punycode, url.parse),
  // not of code bundled into ours
  'node-fetch',
];

/** Bundles into `outdir` (dist/bundle unless told; it must sit two folders below the package, beside dist/, to find drizzle/). */
export async function bundle(outdir = defaultOutdir) {
  rmSync(outdir, { recursive: true, force: true });
  const options = {
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
  };
  // Classes keep their source names (libraries and our logs read constructor names), but not through esbuild's
  // keepNames: that wraps every function expression in `__name(fn, "name")`, a defineProperty on each closure as it
  // is made (about 110 a message, 230 ns and 360 bytes each, alive as long as the turn). A build kept in memory with
  // keepNames says which classes the bundling renamed (two modules' `APIError` become `APIError` and `APIError2`);
  // only those get their name back, once, when the class is defined.
  const named = await build({ ...options, keepNames: true, write: false });
  const renamed = renamedClasses(named.outputFiles.filter((file) => file.path.endsWith('.js')).map((file) => file.text));
  await build(options);
  restoreClassNames(outdir, renamed);
  // the Lua scripts are read at run time (src/redis/lua-source.ts finds them beside the bundle); the migrations
  // are found in the package's drizzle/ folder above it
  mkdirSync(join(outdir, 'lua'), { recursive: true });
  cpSync(join(root, 'src', 'redis', 'lua'), join(outdir, 'lua'), { recursive: true });
}

/** A class's header as the bundle writes it: `[binding=]class[ id][ extends …]{`. */
const CLASS_HEADER = String.raw`(?<![\w$.])(?:([\w$]+)=)?class(?: ([\w$]+))?((?: extends [^{]*)?)\{`;
/** The same with esbuild's keepNames static block after it: `…{static{__name(this,"Name")}`. */
const NAMED_CLASS = new RegExp(`${CLASS_HEADER}static\\{__name\\(this,"([\\w$]+)"\\)\\}`, 'g');

function headerOf(binding, id, heritage) {
  return `${binding ? `${binding}=` : ''}class${id ? ` ${id}` : ''}${heritage}{`;
}

/** Class headers (as the bundle writes them without keepNames) whose class would not be called what its source calls it. */
export function renamedClasses(sources) {
  const renamed = new Map();
  for (const source of sources) {
    for (const [, binding, id, heritage, name] of source.matchAll(NAMED_CLASS)) {
      // a class expression without an id takes the name of what it is assigned to; one assigned to nothing we can
      // find again (`module.exports=class{`) keeps the name JavaScript gives it
      if ((id ?? binding) === name || (id === undefined && binding === undefined)) continue;
      const header = headerOf(binding, id, heritage);
      const known = renamed.get(header);
      if (known !== undefined && known !== name) throw new Error(`bundle: the class header ${header} stands for both ${known} and ${name}`);
      renamed.set(header, name);
    }
  }
  return renamed;
}

/** Gives each renamed class its source name back, in a static block that runs once as the class is defined. */
export function restoreClassNames(outdir, renamed) {
  const pending = new Set(renamed.keys());
  const headers = new RegExp(CLASS_HEADER, 'g');
  for (const file of readdirSync(outdir).filter((name) => name.endsWith('.js'))) {
    const path = join(outdir, file);
    const source = readFileSync(path, 'utf8');
    const restored = source.replace(headers, (header, binding, id, heritage) => {
      const key = headerOf(binding, id, heritage);
      const name = renamed.get(key);
      if (name === undefined) return header;
      pending.delete(key);
      return `${header}static{Object.defineProperty(this,"name",{value:${JSON.stringify(name)},configurable:!0})}`;
    });
    if (restored !== source) writeFileSync(path, restored);
  }
  if (pending.size > 0) throw new Error(`bundle: could not find ${pending.size} renamed classes to name again: ${[...pending].slice(0, 5).join(' ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle(process.argv[2] ? resolve(process.argv[2]) : undefined);
