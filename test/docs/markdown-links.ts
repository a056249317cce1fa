import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `-`, `_` and spaces kept), spaces to `-`. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Text outside fenced code blocks and inline code, where links and headings count. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      lines.push('');
      continue;
    }
    lines.push(fenced ? '' : line.replace(/`[^`]*`/g, '``'));
  }
  return lines;
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats numbered `-1`, `-2` as GitHub does). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const slug = githubSlug(match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative links and anchors of one file that lead nowhere, as `line N: target (why)`. */
export function deadLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const problems: string[] = [];
  prose(markdown).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `line ${index + 1}: ${target}`;
      if (!existsSync(linked)) {
        problems.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(linked).isDirectory() || !linked.endsWith('.md')) {
        problems.push(`${where} (an anchor into a file that is not Markdown)`);
        continue;
      }
      const anchors = linked === file ? anchorsOf(markdown) : anchorsOf(readFileSync(linked, 'utf8'));
      if (!anchors.has(decodeURIComponent(anchor))) problems.push(`${where} (no heading with that anchor)`);
    }
  });
  return problems;
}
