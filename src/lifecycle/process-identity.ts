import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A process named by its pid and the moment it started, so that a pid the system handed to another process
 * since (after a crash, a reboot, a container restart) is not taken for it.
 */
export interface ProcessIdentity {
  pid: number;
  /** Opaque; undefined where the system does not tell (then the pid alone is checked). */
  startTime: string | undefined;
}

export function currentProcess(): ProcessIdentity {
  return { pid: process.pid, startTime: startTimeOf(process.pid) };
}

/** The process exists and is the one that was recorded (same start time, when both are known). */
export function isRunning(identity: ProcessIdentity): boolean {
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (identity.startTime === undefined) return true;
  const now = startTimeOf(identity.pid);
  return now === undefined || now === identity.startTime;
}

/**
 * Linux: the boot id and field 22 of /proc/<pid>/stat (clock ticks after boot); elsewhere `ps -o lstart=`.
 * A zombie (ended, not yet reaped) counts as gone.
 */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name, in parentheses, may hold spaces: count fields after the last `)`
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return 'ended';
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${bootId}:${fields[19]}`;
  } catch {
    // no /proc (macOS, BSD) or no such process
  }
  try {
    const started = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 }).trim();
    return started === '' ? undefined : started;
  } catch {
    return undefined;
  }
}
