import { runInNewContext } from 'node:vm';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error the bundling script is plain JavaScript
import { renamedClasses, restoreClassNames } from '../../scripts/bundle.mjs';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('class names in the bundle (scripts/bundle.mjs)', () => {
  // what esbuild writes with keepNames for two modules' `APIError`, a class with static fields and plain ones
  const withKeepNames = [
    'var __name=(t,v)=>t;class APIError{static{__name(this,"APIError")}}class APIError2 extends Base{static{__name(this,"APIError")}}',
    'var PgArray=class _PgArray extends PgColumn{static{__name(this,"PgArray")}static kind="PgArray"};var Kept=class{static{__name(this,"Kept")}};module.exports=class{static{__name(this,"Anonymous")}};',
  ];
  // the same modules as the bundle is written: no keepNames
  const withoutKeepNames = [
    'class Base{}class APIError{}class APIError2 extends Base{}',
    'class PgColumn{}var PgArray=class _PgArray extends PgColumn{static kind="PgArray"};var Kept=class{};var module={};module.exports=class{};',
  ];

  it('finds the classes the bundling renamed, and only those', () => {
    const renamed = renamedClasses(withKeepNames);
    expect([...renamed]).toEqual([
      ['class APIError2 extends Base{', 'APIError'],
      ['PgArray=class _PgArray extends PgColumn{', 'PgArray'],
    ]);
  });

  it('gives them their source names back, and leaves every other class as it was', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'bundle-names-'));
    directories.push(outdir);
    withoutKeepNames.forEach((source, index) => writeFileSync(join(outdir, `chunk-${index}.js`), source));
    restoreClassNames(outdir, renamedClasses(withKeepNames));
    const names = (index: number, expression: string) => runInNewContext(`${readFileSync(join(outdir, `chunk-${index}.js`), 'utf8')};${expression}`);
    expect(names(0, '[APIError.name, APIError2.name, new APIError2() instanceof Base]')).toEqual(['APIError', 'APIError', true]);
    expect(names(1, '[PgArray.name, PgArray.kind, Kept.name, module.exports.name]')).toEqual(['PgArray', 'PgArray', 'Kept', '']);
  });

  it('refuses a renamed class it cannot find again, rather than leave it misnamed', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'bundle-names-'));
    directories.push(outdir);
    writeFileSync(join(outdir, 'chunk.js'), 'class Other{}');
    expect(() => restoreClassNames(outdir, renamedClasses(withKeepNames))).toThrow(/could not find 2 renamed classes/);
  });
});
