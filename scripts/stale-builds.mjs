// When a build output is out of date: one rule for `npm start`'s build (scripts/build-if-needed.mjs) and the tests'
// global set-up (test/support/global-setup.ts). An output is stale when it is missing, or older than a source under
// its folders or than one of its settings files (a dependency's upgrade, package-lock.json, counts as a source too).
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under `directory` whose name ends with one of `suffixes`. */
export function newestFile(directory, suffixes) {
  if (!existsSync(directory)) return 0;
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newestFile(path, suffixes));
    else if (suffixes.some((suffix) => entry.name.endsWith(suffix))) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** Whether `output` is missing, or older than a file under `folders` whose name ends with one of `suffixes`, or than one of `files`. */
export function isStale(output, folders, suffixes, files) {
  if (!existsSync(output)) return true;
  const builtAt = statSync(output).mtimeMs;
  return files.some((file) => existsSync(file) && statSync(file).mtimeMs >= builtAt) || folders.some((folder) => newestFile(folder, suffixes) >= builtAt);
}

/**
 * tsc builds incrementally (tsconfig.json: dist/.tsbuildinfo) and rewrites only the outputs whose source changed, so
 * the time of its last emitting run is kept on a marker of its own (markTscBuilt) rather than read from an output.
 * Not the build-info file: `tsc --noEmit` (npm run typecheck) rewrites that one without emitting anything.
 */
const tscBuildInfo = (root) => join(root, 'dist/.tsc-built');

/** Which of the two builds under `root`/dist are stale: the tsc output (dist/src/…) and the esbuild bundle (dist/bundle/cli.js). */
export function staleBuilds(root) {
  const under = (...names) => names.map((name) => join(root, name));
  return {
    tsc: isStale(tscBuildInfo(root), under('src', 'channels', 'bench', 'soak', 'test'), ['.ts'], under('tsconfig.json', 'package-lock.json')),
    bundle: isStale(join(root, 'dist/bundle/cli.js'), under('src', 'channels'), ['.ts', '.lua'], under('scripts/bundle.mjs', 'package-lock.json')),
  };
}

/** Records that tsc has just emitted for every source (call it after a tsc run that emits). */
export function markTscBuilt(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(tscBuildInfo(root), `${new Date().toISOString()}\n`);
}
