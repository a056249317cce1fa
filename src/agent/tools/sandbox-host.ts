import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { findExecutable } from './executable-path.js';
import { PidsCgroups } from './pids-cgroup.js';
import { encodeOptions, sandboxCommandLine, sandboxOptions, type SandboxLayout } from './sandbox-arguments.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxPolicy } from './sandbox-policy.js';
import type { HostEnvironment } from './tool-environment.js';

/** How the sandbox's process limit is enforced: RLIMIT_NPROC, a pids cgroup (root), or not at all. */
export type ProcessLimitMethod = 'rlimit' | 'pids-cgroup' | 'none';

export interface SandboxHost {
  layout: SandboxLayout;
  /** `bubblewrap 0.8.0` */
  version: string;
  processLimit: ProcessLimitMethod;
  cgroups: PidsCgroups | undefined;
  /** Commands then run as uid 0 without capabilities: contained, but a non-root service is safer. */
  runsAsRoot: boolean;
}

export type SandboxAvailability = { available: true; host: SandboxHost } | { available: false; reason: string };

export const SANDBOX_INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

const ROOT_ENTRIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Enough of /etc for the dynamic linker, TLS, name resolution, time zones and MIME types; never keys or passwords. */
const ETC_PATHS = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/pki/tls/certs',
  '/etc/pki/ca-trust',
  '/etc/crypto-policies',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/protocols',
  '/etc/services',
  '/etc/mime.types',
];
const PROBE_TIMEOUT_MS = 10_000;

const detected = new Map<string, SandboxAvailability>();

/**
 * Whether bubblewrap can run a command in a sandbox like the real ones on this host; found once per
 * process (`BWRAP_PATH`, else `bwrap` on PATH) by actually running `true` in it.
 */
export function detectSandbox(hostEnv: HostEnvironment = process.env): SandboxAvailability {
  const key = `${hostEnv.BWRAP_PATH ?? ''}\n${hostEnv.PATH ?? ''}`;
  let availability = detected.get(key);
  if (!availability) {
    availability = probe(hostEnv);
    detected.set(key, availability);
  }
  return availability;
}

function probe(hostEnv: HostEnvironment): SandboxAvailability {
  if (process.platform !== 'linux') return { available: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const requested = hostEnv.BWRAP_PATH || 'bwrap';
  const bwrapPath = findExecutable(requested, hostEnv.PATH);
  if (bwrapPath === undefined) {
    return { available: false, reason: hostEnv.BWRAP_PATH ? `BWRAP_PATH=${hostEnv.BWRAP_PATH} is not an executable file` : 'bwrap is not on PATH' };
  }
  const prlimitPath = findExecutable('prlimit', hostEnv.PATH ?? '/usr/bin:/bin');
  if (prlimitPath === undefined || !prlimitPath.startsWith('/usr/')) {
    return { available: false, reason: 'prlimit (util-linux) is not installed under /usr' };
  }
  const layout: SandboxLayout = { bwrapPath, prlimitPath, rootEntries: rootEntries(), etcPaths: ETC_PATHS.filter((path) => existsSync(path)) };
  const policy: SandboxPolicy = { network: false, readOnlyPaths: [], limits: DEFAULT_SANDBOX_LIMITS };
  const invocation = { env: { PATH: '/usr/bin:/bin' }, command: 'true', args: [] };
  const result = spawnSync(bwrapPath, sandboxCommandLine(layout, policy, invocation, 0), {
    input: encodeOptions(sandboxOptions(layout, policy, invocation)),
    env: {},
    timeout: PROBE_TIMEOUT_MS,
    encoding: 'utf8',
  });
  if (result.error) return { available: false, reason: `${bwrapPath} could not run: ${result.error.message}` };
  if (result.status !== 0) {
    const said = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n')[0] || `exit code ${result.status ?? result.signal}`;
    return { available: false, reason: `${bwrapPath} cannot create a sandbox here: ${said}` };
  }
  const version = spawnSync(bwrapPath, ['--version'], { env: {}, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS }).stdout?.trim() || 'bubblewrap';
  const runsAsRoot = process.getuid?.() === 0;
  const cgroups = runsAsRoot ? PidsCgroups.find() : undefined;
  return {
    available: true,
    host: { layout, version, processLimit: !runsAsRoot ? 'rlimit' : cgroups ? 'pids-cgroup' : 'none', cgroups, runsAsRoot },
  };
}

function rootEntries(): SandboxLayout['rootEntries'] {
  const entries: SandboxLayout['rootEntries'] = [];
  for (const path of ROOT_ENTRIES) {
    try {
      const info = lstatSync(path);
      if (info.isSymbolicLink()) entries.push({ path, symlinkTarget: readlinkSync(path) });
      else if (info.isDirectory()) entries.push({ path });
    } catch {
      // not on this system
    }
  }
  return entries;
}

/** One line for doctor and the logs: what confines a sandboxed command here. */
export function describeSandboxHost(host: SandboxHost): string {
  const processes = {
    rlimit: 'processes limited by RLIMIT_NPROC',
    'pids-cgroup': 'processes limited by a pids cgroup (the service runs as root)',
    none: 'processes NOT limited (the service runs as root and has no writable pids cgroup: run it as a non-root user)',
  }[host.processLimit];
  const root = host.runsAsRoot ? '; commands run as uid 0 without capabilities: running the service as a non-root user is safer' : '';
  return `${host.version} at ${host.layout.bwrapPath} runs commands in new namespaces; ${processes}${root}`;
}
