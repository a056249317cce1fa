// Reads the import graph of src/ and channels/ straight from the source text: every
// `import … from`, `import type … from`, `export … from` and `await import('…')`.
// Relative specifiers are resolved to files; bare specifiers are kept as packages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ImportEdge {
  from: string; // file, relative to the repository root
  to: string; // file relative to the root, or a package name
  isPackage: boolean;
  typeOnly: boolean;
}

const importPattern =
  /(?:^|[\s;}])(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function readImportGraph(root: string, folders: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      const text = withoutComments(readFileSync(file, 'utf8'));
      for (const match of text.matchAll(importPattern)) {
        const specifier = match[2] ?? match[3]!;
        const typeOnly = match[1] !== undefined;
        const from = relative(root, file);
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
          edges.push({ from, to: relative(root, target), isPackage: false, typeOnly });
        } else {
          edges.push({ from, to: packageName(specifier.replace(/^node:.*/, 'node')), isPackage: true, typeOnly });
        }
      }
    }
  }
  return edges;
}

/** The folder a file belongs to for layering: `src/turn`, `channels/telegram`, `src/cli.ts`… */
export function moduleOf(file: string): string {
  const parts = file.split('/');
  if (parts.length <= 2) return file;
  return `${parts[0]}/${parts[1]}`;
}
