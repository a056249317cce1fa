/**
 * A first filter for the `bash` tool, easily bypassed (`$(printf "r%s" m)`): the boundary is the
 * sandbox every command runs in (`command-runner.ts`), and bash being off by default. A command
 * line is refused when any word in it names a dangerous command, wherever it stands
 * (after `;`, `&&`, `|`, `$(`, `xargs`, `find -exec`, a path like `/bin/rm`, quotes or backslashes).
 */
export const BLOCKED_COMMANDS = [
  'rm', 'rmdir', 'shred', 'wipefs', 'unlink',
  'sudo', 'su', 'doas', 'pkexec',
  'shutdown', 'reboot', 'halt', 'poweroff', 'telinit',
  'mkfs', 'mkswap', 'dd', 'fdisk', 'sfdisk', 'parted', 'mount', 'umount',
  'killall', 'pkill',
  'chown', 'chgrp', 'iptables', 'nft', 'crontab', 'visudo', 'passwd', 'useradd', 'userdel', 'usermod',
] as const;

const WORD_SEPARATORS = /[\s;&|()<>`$]+/;
const FORK_BOMB = /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/;
const WORLD_WRITABLE = /^(?:0?777|[ugoa]*\+rwx|[ugoa]*=rwx)$/;

function commandName(word: string): string {
  const unquoted = word.replace(/["'\\{}]/g, '');
  const name = unquoted.slice(unquoted.lastIndexOf('/') + 1);
  return name.startsWith('mkfs.') ? 'mkfs' : name;
}

/** The reason a command line is refused, or undefined when it may run. */
export function findBlockedCommand(commandLine: string, blocked: readonly string[] = BLOCKED_COMMANDS): string | undefined {
  if (FORK_BOMB.test(commandLine)) return 'fork bomb';
  if (/(?:>|of=)\s*\/dev\/(?:sd|hd|nvme|vd|xvd|mmcblk|disk)/.test(commandLine)) return 'writing to a block device';
  const words = commandLine.split(WORD_SEPARATORS).filter((word) => word.length > 0);
  for (const [index, word] of words.entries()) {
    const name = commandName(word);
    if (blocked.includes(name)) return name;
    if (name === 'chmod' && words.slice(index + 1).some((argument) => WORLD_WRITABLE.test(commandName(argument)))) return 'chmod 777';
  }
  return undefined;
}
