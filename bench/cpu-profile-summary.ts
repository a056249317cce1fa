// `node dist/bench/cpu-profile-summary.js <file.cpuprofile> [top]`: where a `node --cpu-prof` profile spends its time,
// by function (self time) and by package or source folder (self and inclusive time).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** `bullmq`, `@slack/bolt`, `src/queue`, `channels/telegram`, `node:internal`, `(program)`… */
export function categoryOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nodeModules = url.lastIndexOf('/node_modules/');
  if (nodeModules !== -1) {
    const rest = url.slice(nodeModules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? `node:internal/${url.split('/')[1] ?? ''}` : url;
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.join('/');
  }
  return url;
}

/** For samples whose own frame is `leafName` (e.g. a native like writeBuffer): the first ancestors with a source
 * location outside node's internals, i.e. which of our or a package's functions led there. */
export function callersOf(profile: Profile, leafName: string, top = 15, depth = 3) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const callers = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((nodeId, index) => {
    const node = byId.get(nodeId)!;
    if (node.callFrame.functionName !== leafName) return;
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const chain: string[] = [];
    for (let id = parent.get(nodeId); id !== undefined && chain.length < depth; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!frame.url || frame.url.startsWith('node:')) continue;
      chain.push(`${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|dist)\//, '')}:${frame.lineNumber + 1}`);
    }
    const key = chain.join(' < ') || '(no source frame)';
    callers.set(key, (callers.get(key) ?? 0) + delta);
  });
  return [...callers.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => ({ name, ms: Math.round(micros / 1000), percent: Math.round((1000 * micros) / Math.max(1, total)) / 10 }));
}

/**
 * `exclude`: leaf functions left out, e.g. the socket writes (writeBuffer, writeUtf8String, writev) whose sampled
 * time on a busy 2-core machine is mostly the process being descheduled, not CPU; `(idle)` is always left out of
 * the percentages' base when excluded.
 */
/** The project function nearest the leaf (dist/src or dist/channels): which of our calls the time is spent under,
 * libraries included; samples with no project frame go to the nearest package frame. */
export function byProjectFrame(profile: Profile, top = 25, exclude: ReadonlySet<string> = new Set()) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const isProject = (url: string) => /\/dist\/(src|channels)\//.test(url);
  const totals = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((nodeId, index) => {
    const leaf = byId.get(nodeId)!.callFrame;
    if (exclude.has(leaf.functionName)) return;
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    let key: string | undefined;
    let firstPackage: string | undefined;
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (isProject(frame.url)) {
        key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/dist\//, '')}:${frame.lineNumber + 1}`;
        break;
      }
      if (!firstPackage && frame.url && !frame.url.startsWith('node:')) firstPackage = categoryOf(frame);
    }
    key ??= `[${firstPackage ?? categoryOf(leaf)}, no project frame]`;
    totals.set(key, (totals.get(key) ?? 0) + delta);
  });
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => ({ name, ms: Math.round(micros / 1000), percent: Math.round((1000 * micros) / Math.max(1, total)) / 10 }));
}

export function summarizeProfile(profile: Profile, top = 25, exclude: ReadonlySet<string> = new Set()) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfByFunction = new Map<string, number>();
  const selfByCategory = new Map<string, number>();
  const inclusiveByCategory = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const node = byId.get(nodeId)!;
    const frame = node.callFrame;
    if (exclude.has(frame.functionName)) return;
    total += delta;
    const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '')}:${frame.lineNumber + 1}` : '';
    const fn = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + delta);
    const category = categoryOf(frame);
    selfByCategory.set(category, (selfByCategory.get(category) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const ancestor = categoryOf(byId.get(id)!.callFrame);
      if (seen.has(ancestor)) continue;
      seen.add(ancestor);
      inclusiveByCategory.set(ancestor, (inclusiveByCategory.get(ancestor) ?? 0) + delta);
    }
  });
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, ms: Math.round(micros / 1000), percent: Math.round((1000 * micros) / total) / 10 }));
  return {
    totalMs: Math.round(total / 1000),
    selfByFunction: rank(selfByFunction),
    selfByCategory: rank(selfByCategory),
    inclusiveByCategory: rank(inclusiveByCategory),
  };
}

if (process.argv[1]?.endsWith('cpu-profile-summary.js')) {
  const args = process.argv.slice(2);
  const excludeArg = args.find((arg) => arg.startsWith('--exclude='));
  const [file, top, ...leaves] = args.filter((arg) => arg !== excludeArg);
  const exclude = new Set(excludeArg ? excludeArg.slice('--exclude='.length).split(',') : []);
  if (!file) {
    process.stderr.write('usage: node dist/bench/cpu-profile-summary.js <file.cpuprofile> [top] [function whose callers to show…] [--exclude=writeBuffer,writeUtf8String,writev,(idle)]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const summary = summarizeProfile(profile, Number(top ?? 25), exclude);
  if (exclude.size > 0) process.stdout.write(`left out samples whose own frame is: ${[...exclude].join(', ')}\n`);
  const table = (title: string, rows: Array<{ name: string; ms: number; percent: number }>) =>
    `${title}\n${rows.map((row) => `  ${String(row.percent).padStart(5)}%  ${String(row.ms).padStart(7)} ms  ${row.name}`).join('\n')}\n`;
  process.stdout.write(`total sampled: ${summary.totalMs} ms\n`);
  process.stdout.write(table('self time by package / source folder', summary.selfByCategory));
  process.stdout.write(table('inclusive time by package / source folder', summary.inclusiveByCategory));
  process.stdout.write(table('self time by function', summary.selfByFunction));
  process.stdout.write(table('time by nearest project function (libraries it calls included)', byProjectFrame(profile, Number(top ?? 25), exclude)));
  for (const leaf of leaves) process.stdout.write(table(`callers of ${leaf} (share of its time)`, callersOf(profile, leaf)));
}
