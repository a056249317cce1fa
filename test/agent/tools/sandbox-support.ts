import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentTool } from '../../../src/agent/tools/agent-tool.js';
import { createBashTool } from '../../../src/agent/tools/bash-tool.js';
import { sandboxedRunner } from '../../../src/agent/tools/command-runner.js';
import { detectSandbox, type SandboxHost } from '../../../src/agent/tools/sandbox-host.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxPolicy } from '../../../src/agent/tools/sandbox-policy.js';
import { testToolContext } from '../support/agent-run.js';

/** The real bubblewrap of this machine; the sandbox tests fail (never skip) without it. */
export function sandboxHost(): SandboxHost {
  const availability = detectSandbox();
  if (!availability.available) throw new Error(`the sandbox tests need bubblewrap: ${availability.reason}`);
  return availability.host;
}

/** A DATA_DIR with two users' workspaces; bob's holds a secret alice must not read. */
export interface Workspaces {
  root: string;
  alice: string;
  bob: string;
  bobSecret: string;
  close(): void;
}

export function createWorkspaces(prefix: string): Workspaces {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const alice = join(root, 'workspaces', 'alice');
  const bob = join(root, 'workspaces', 'bob');
  mkdirSync(alice, { recursive: true });
  mkdirSync(bob, { recursive: true });
  const bobSecret = `bob-secret-${process.pid}-${Date.now()}`;
  writeFileSync(join(bob, 'secret.txt'), bobSecret);
  return { root, alice, bob, bobSecret, close: () => rmSync(root, { recursive: true, force: true }) };
}

export function sandboxedBash(options: { network?: boolean; limits?: Partial<SandboxLimits>; timeoutMs?: number; readOnlyPaths?: string[] } = {}): AgentTool {
  const policy: SandboxPolicy = {
    network: options.network ?? false,
    readOnlyPaths: options.readOnlyPaths ?? [],
    limits: { ...DEFAULT_SANDBOX_LIMITS, ...options.limits },
  };
  return createBashTool({
    runner: sandboxedRunner(sandboxHost(), policy),
    hostEnv: process.env,
    network: policy.network,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** The tool's text whether the command succeeded or not (a failure's message carries the output). */
export async function run(tool: AgentTool, command: string, workspace: string, signal = new AbortController().signal): Promise<string> {
  try {
    return await tool.execute({ command }, testToolContext(signal, workspace));
  } catch (error) {
    return (error as Error).message;
  }
}

/** Host processes (not zombies) whose command line contains `marker`, seen from outside every sandbox. */
export function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * The processes with `marker` still there after up to `withinMs`: the kernel tears down a sandbox's PID
 * namespace (SIGKILL to every member) when its init exits, and a loaded machine may show a member for a
 * few milliseconds after the command has returned.
 */
export async function hostProcessesLeft(marker: string, withinMs = 1_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = hostProcessesWith(marker);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
