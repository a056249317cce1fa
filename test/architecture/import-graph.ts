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

// Declarations start a line (multi-line braces allowed); a dynamic import may stand anywhere outside a comment.
// Comments are not stripped: a `/*` inside a string (a glob) would swallow real imports, and a miss is silent.
const declarationPattern = /^[ \t]*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const dynamicPattern = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function inComment(text: string, index: number): boolean {
  const line = text.slice(text.lastIndexOf('\n', index) + 1, index).trimStart();
  return line.startsWith('//') || line.startsWith('*') || line.startsWith('/*');
}

function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found = [...text.matchAll(declarationPattern)].map((match) => ({ specifier: match[2]!, typeOnly: match[1] !== undefined }));
  for (const match of text.matchAll(dynamicPattern)) {
    if (!inComment(text, match.index)) found.push({ specifier: match[1]!, typeOnly: false });
  }
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function readImportGraph(root: string, folders: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      for (const { specifier, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
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
