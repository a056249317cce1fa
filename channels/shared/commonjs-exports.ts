/**
 * The exports of a CommonJS package loaded with `import()`: Node's own loader offers its named exports, but in the
 * production bundle (scripts/bundle.mjs) a lazily loaded CommonJS package is a chunk whose only export is `default`,
 * the package's `module.exports`. `probe` names an export that must be there.
 */
export function commonJsExports<Module extends object>(loaded: Module & { default?: Module }, probe: keyof Module): Module {
  if (loaded[probe] !== undefined) return loaded;
  if (loaded.default?.[probe] !== undefined) return loaded.default;
  throw new Error(`the package loaded without its export ${String(probe)}`);
}
