import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of a process in MiB (VmRSS of /proc/<pid>/status); NaN when it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU time a process has used so far, in ms (from /proc/<pid>/stat); 0 when it is gone. */
export function cpuMs(pid: number, which: 'user+system' | 'system' = 'user+system'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may contain spaces) start at state = field 3
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (((which === 'system' ? 0 : utime) + stime) * 1000) / clockTicks();
  } catch {
    return 0;
  }
}

/** Process ids whose command name is `name` (e.g. every `postgres` backend), optionally only those whose command line
 * (a PostgreSQL backend's title names its database) contains `cmdlineIncludes`. */
export function pidsNamed(name: string, cmdlineIncludes?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      if (cmdlineIncludes !== undefined && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(cmdlineIncludes)) continue;
      pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/**
 * Context switches of every thread of a process so far (voluntary: a thread went to sleep and was woken again, the
 * event loop's epoll_wait among them; involuntary: preempted), from /proc/<pid>/task/<tid>/status. A count, so it
 * survives a busy machine where CPU times do not: the wake-ups a message costs. Threads that exited are not counted.
 */
export function contextSwitches(pid: number): number {
  let total = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

export interface CpuProbe {
  label: string;
  /** Current cumulative CPU ms of what the probe watches. */
  read(): number;
}

export const cpuOfPid = (label: string, pid: number): CpuProbe => ({ label, read: () => cpuMs(pid) });

/** Only the kernel (system) part: socket writes and reads, mkdir, … */
export const systemCpuOfPid = (label: string, pid: number): CpuProbe => ({ label, read: () => cpuMs(pid, 'system') });

/** All processes of a name, summed (PostgreSQL backends come and go; exited ones are not counted). */
export const cpuOfProcessesNamed = (label: string, name: string, cmdlineIncludes?: string): CpuProbe => ({
  label,
  read: () => pidsNamed(name, cmdlineIncludes).reduce((sum, pid) => sum + cpuMs(pid), 0),
});

/** CPU ms each probe used between start() and stop(), and the window's wall-clock ms. */
export function cpuWindow(probes: CpuProbe[]) {
  const before = probes.map((probe) => probe.read());
  const startedAt = performance.now();
  return {
    stop(): { cpuMs: Record<string, number>; wallMs: number } {
      return {
        cpuMs: Object.fromEntries(probes.map((probe, index) => [probe.label, Math.max(0, probe.read() - before[index]!)])),
        wallMs: performance.now() - startedAt,
      };
    },
  };
}

/** Busy CPU ms of the whole machine (all cores, from /proc/stat): everything not idle or waiting for I/O. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, ...values] = line.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number) as number[];
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / clockTicks();
}

export const cpuOfMachine = (): CpuProbe => ({ label: 'machine', read: machineBusyMs });

/** The parent process id of `pid` (field 4 of /proc/<pid>/stat); undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every process below `pid` (children, their children, …), e.g. the redis-server an embedded install spawns. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    found.push(next);
    stack.push(...(children.get(next) ?? []));
  }
  return found;
}

/** The command name of a process (`/proc/<pid>/comm`), or '' when it is gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
