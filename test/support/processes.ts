import { readdirSync, readFileSync } from 'node:fs';

interface ProcessStat {
  pid: number;
  command: string;
  state: string;
  parentPid: number;
}

/** `/proc/<pid>/stat`: the command sits in parentheses and may hold spaces, so fields are read after the last `)`. */
function statOf(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  const [state, parentPid] = text.slice(close + 2).split(' ');
  return { pid, command: text.slice(text.indexOf('(') + 1, close), state: state!, parentPid: Number(parentPid) };
}

/** The direct children of a process (Linux /proc), e.g. the embedded redis-server of a service. */
export function childrenOf(parentPid: number): ProcessStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => statOf(Number(name)))
    .filter((stat): stat is ProcessStat => stat !== undefined && stat.parentPid === parentPid && stat.state !== 'Z');
}

/** Alive and not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** Resolves true once the process has ended, false when it is still there after `timeoutMs`. */
export async function endsWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
