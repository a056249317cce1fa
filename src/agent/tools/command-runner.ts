import { encodeOptions, OPTIONS_FD, sandboxCommandLine, sandboxOptions, type SandboxInvocation } from './sandbox-arguments.js';
import type { SandboxHost } from './sandbox-host.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { runProcess, type ProcessRequest, type ProcessResult } from './run-process.js';

/** How bash and the CLI tools start a command: in the sandbox, or (opted out) as the service's own child. */
export interface CommandRunner {
  readonly sandboxed: boolean;
  /** `request.cwd` is the workspace. */
  run(request: ProcessRequest): Promise<ProcessResult>;
}

/** `sandbox: off`: the command runs with the service's user, files and network. */
export const unconfinedRunner: CommandRunner = { sandboxed: false, run: runProcess };

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';
const PASSWD_FD = OPTIONS_FD + 1;
const GROUP_FD = OPTIONS_FD + 2;

/**
 * Runs each command in a fresh bubblewrap sandbox: new PID, IPC, UTS, network (unless allowed) and
 * user namespaces, a read-only root of /usr and a few /etc files, a private /proc, /dev and /tmp,
 * the workspace the only writable host directory, the allow-listed environment only, prlimit'ed.
 * When bwrap dies (timeout, abort, or the command ends), PID 1 of the namespace dies and the kernel
 * kills every process left in it, background jobs included.
 */
export function sandboxedRunner(host: SandboxHost, policy: SandboxPolicy): CommandRunner {
  return {
    sandboxed: true,
    async run(request) {
      const workspace = request.cwd;
      const env = { PATH: DEFAULT_PATH, ...request.env, HOME: workspace, TMPDIR: '/tmp' };
      const invocation: SandboxInvocation = {
        workspace,
        env,
        command: request.command,
        args: request.args,
        identityFds: { passwd: PASSWD_FD, group: GROUP_FD },
      };
      const commandLine = sandboxCommandLine(host.layout, policy, invocation);
      // bwrap's own two processes count too
      const cgroup = host.cgroups ? await host.cgroups.create(policy.limits.processes + 2) : undefined;
      const launch = cgroup
        ? // joins the cgroup before bwrap exists, so nothing it starts is outside
          { command: '/bin/sh', args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, host.layout.bwrapPath, ...commandLine] }
        : { command: host.layout.bwrapPath, args: commandLine };
      try {
        return await runProcess({
          ...request,
          ...launch,
          cwd: '/',
          env: {},
          extraInputs: [encodeOptions(sandboxOptions(host.layout, policy, invocation)), ...identityFiles(workspace)],
        });
      } finally {
        void cgroup?.release();
      }
    },
  };
}

/** /etc/passwd and /etc/group naming only the sandbox's user, so `whoami`, ssh or git find one. */
function identityFiles(home: string): [string, string] {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const user = uid === 0 ? 'root' : 'sandbox';
  const group = gid === 0 ? 'root' : 'sandbox';
  return [
    `${user}:x:${uid}:${gid}:sandbox:${home.replace(/[:\n]/g, '_')}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    `${group}:x:${gid}:\nnogroup:x:65534:\n`,
  ];
}
