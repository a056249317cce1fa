import type { SandboxPolicy } from './sandbox-policy.js';

/** What the sandbox's read-only root is made of on this host (found once, see `sandbox-host.ts`). */
export interface SandboxLayout {
  bwrapPath: string;
  prlimitPath: string;
  /** `/bin`, `/lib64`…: a symlink into /usr on merged-/usr systems, else a directory to mount. */
  rootEntries: Array<{ path: string; symlinkTarget?: string }>;
  /** The pieces of /etc a shell and the common tools need; never the whole /etc. */
  etcPaths: string[];
}

export interface SandboxInvocation {
  /** Mounted writable at its own path, and the working directory; none for the availability probe. */
  workspace?: string;
  env: Record<string, string>;
  command: string;
  args: string[];
  /** Minimal /etc/passwd and /etc/group, read from these file descriptors. */
  identityFds?: { passwd: number; group: number };
}

/** bwrap reads its options from this descriptor, so the values of --setenv never show in `ps`. */
export const OPTIONS_FD = 3;

const MIB = 1024 * 1024;

/** The bwrap options (given through OPTIONS_FD): namespaces, the minimal root, the workspace, the environment. */
export function sandboxOptions(layout: SandboxLayout, policy: SandboxPolicy, invocation: SandboxInvocation): string[] {
  const options = [
    '--unshare-all',
    ...(policy.network ? ['--share-net'] : []),
    // an explicit user namespace, so that the sandbox cannot make new ones (and regain capabilities there)
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--clearenv',
  ];
  for (const [key, value] of Object.entries(invocation.env)) options.push('--setenv', key, value);

  options.push('--ro-bind', '/usr', '/usr');
  for (const entry of layout.rootEntries) {
    if (entry.symlinkTarget !== undefined) options.push('--symlink', entry.symlinkTarget, entry.path);
    else options.push('--ro-bind', entry.path, entry.path);
  }
  for (const path of layout.etcPaths) options.push('--ro-bind-try', path, path);
  if (invocation.identityFds) {
    options.push('--perms', '0644', '--ro-bind-data', String(invocation.identityFds.passwd), '/etc/passwd');
    options.push('--perms', '0644', '--ro-bind-data', String(invocation.identityFds.group), '/etc/group');
  }

  const tmpBytes = String(policy.limits.tmp_mb * MIB);
  options.push('--proc', '/proc', '--dev', '/dev', '--size', tmpBytes, '--tmpfs', '/dev/shm', '--size', tmpBytes, '--tmpfs', '/tmp');
  for (const path of policy.readOnlyPaths) options.push('--ro-bind-try', path, path);
  if (invocation.workspace !== undefined) options.push('--bind', invocation.workspace, invocation.workspace);
  // not recursive: the workspace, /tmp, /dev/shm and /dev/pts stay writable; the rest is read-only.
  // /proc too: a sandbox running as uid 0 (a root service) could otherwise write the host's /proc/sys
  // (kernel.core_pattern…), whose permission check looks at the uid, not at capabilities.
  options.push('--remount-ro', '/proc', '--remount-ro', '/dev', '--remount-ro', '/', '--chdir', invocation.workspace ?? '/');
  return options;
}

/** bwrap's command line: the options come through `optionsFd`, the command runs under prlimit. */
export function sandboxCommandLine(layout: SandboxLayout, policy: SandboxPolicy, invocation: SandboxInvocation, optionsFd = OPTIONS_FD): string[] {
  const { limits } = policy;
  return [
    '--args',
    String(optionsFd),
    '--',
    layout.prlimitPath,
    `--nproc=${limits.processes}`,
    `--as=${limits.memory_mb * MIB}`,
    `--cpu=${limits.cpu_seconds}`,
    `--fsize=${limits.file_size_mb * MIB}`,
    '--core=0',
    '--',
    invocation.command,
    ...invocation.args,
  ];
}

/** bwrap's --args format: each argument followed by a NUL byte. */
export function encodeOptions(options: string[]): string {
  return options.map((option) => `${option}\0`).join('');
}
