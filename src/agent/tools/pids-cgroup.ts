import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * The kernel never applies RLIMIT_NPROC to uid 0, so when the service runs as root a fork bomb in
 * the sandbox is bounded by a pids cgroup instead: one child cgroup per command, with `pids.max`.
 * Used only when the service's own cgroup is writable (cgroup v1 with the pids controller, or v2
 * with pids enabled for the subtree); otherwise the process limit is not enforced and the sandbox
 * says so.
 */
export class PidsCgroups {
  #sequence = 0;

  private constructor(readonly base: string) {}

  /** The directory child cgroups go in, or undefined when there is none we may use. */
  static find(): PidsCgroups | undefined {
    const base = ownPidsCgroup();
    if (base === undefined) return undefined;
    const probe = join(base, `${PREFIX}${process.pid}-probe`);
    try {
      mkdirSync(probe);
      try {
        writeFileSync(join(probe, 'pids.max'), '8');
      } finally {
        rmdirSync(probe);
      }
    } catch {
      return undefined;
    }
    const cgroups = new PidsCgroups(base);
    cgroups.removeStale();
    return cgroups;
  }

  /** A fresh cgroup allowing `maxProcesses` tasks; move a process in by writing its pid to `procsFile`. */
  async create(maxProcesses: number): Promise<{ procsFile: string; release: () => Promise<void> }> {
    this.#sequence += 1;
    const directory = join(this.base, `${PREFIX}${process.pid}-${this.#sequence}`);
    await mkdir(directory);
    await writeFile(join(directory, 'pids.max'), String(maxProcesses));
    return { procsFile: join(directory, 'cgroup.procs'), release: () => removeWhenEmpty(directory) };
  }

  /** Cgroups left by service processes that died mid-command (their tasks are gone with the sandbox). */
  private removeStale(): void {
    for (const name of readdirSync(this.base)) {
      const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
      if (!pid || isAlive(pid)) continue;
      try {
        rmdirSync(join(this.base, name));
      } catch {
        // still busy or already gone
      }
    }
  }
}

const PREFIX = 'chatbot-sandbox-';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The killed sandbox's last tasks may need a moment to be reaped before the cgroup can go. */
async function removeWhenEmpty(directory: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      await rmdir(directory);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

interface Mount {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

function mounts(): Mount[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [before, after = ''] = line.split(' - ');
      const fields = (before ?? '').split(' ');
      const [fsType = '', , superOptions = ''] = after.split(' ');
      return { root: fields[3] ?? '', mountPoint: unescapeMountPath(fields[4] ?? ''), fsType, superOptions: superOptions.split(',') };
    });
}

function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** This process's cgroup directory in a hierarchy with the pids controller, if any. */
function ownPidsCgroup(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const all = mounts();
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, controllers = '', path = ''] = line.split(':');
      const version1 = controllers.split(',').includes('pids');
      const mount = all.find((candidate) =>
        version1 ? candidate.fsType === 'cgroup' && candidate.superOptions.includes('pids') : controllers === '' && candidate.fsType === 'cgroup2',
      );
      const below = mount ? relative(mount.root, path) : '..';
      if (!mount || below.startsWith('..')) continue;
      const directory = join(mount.mountPoint, below);
      if (!version1 && !readFileSync(join(directory, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) continue;
      return directory;
    }
  } catch {
    // no cgroup file system we can read
  }
  return undefined;
}
