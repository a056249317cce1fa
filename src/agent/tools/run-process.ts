import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { formatDuration, truncationNotice } from './output-limit.js';

export interface ProcessRequest {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Written to file descriptors 3, 4, … of the child, then closed (small data: bwrap's options, files). */
  extraInputs?: string[];
}

export type ProcessEnd = 'exited' | 'timed-out' | 'aborted' | 'spawn-failed';

export interface ProcessResult {
  end: ProcessEnd;
  exitCode: number | null;
  /** The signal that ended the process, when one did. */
  exitSignal?: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived, capped, with a notice when cut. */
  output: string;
  spawnError?: string;
}

/** After the group is killed, a descendant that escaped it may still hold the pipes open. */
const PIPE_GRACE_MS = 500;

/**
 * Runs one command without a shell, in its own process group so a timeout or an abort kills
 * every descendant, not just the direct child.
 */
export function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let keptBytes = 0;
    let totalBytes = 0;
    let end: ProcessEnd = 'exited';
    let settled = false;

    const extraInputs = request.extraInputs ?? [];
    const child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...extraInputs.map(() => 'pipe' as const)],
    });
    extraInputs.forEach((data, index) => {
      const stream = child.stdio[index + 3] as Writable | null;
      // a child that fails early closes its end; the write error is not ours to report
      stream?.on('error', () => undefined);
      stream?.end(data);
    });

    const collect = (chunk: Buffer): void => {
      totalBytes += chunk.length;
      const room = request.maxOutputBytes - keptBytes;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      keptBytes += kept.length;
    };
    // 'pipe' above: both exist
    const stdout = child.stdout!;
    const stderr = child.stderr!;
    stdout.on('data', collect);
    stderr.on('data', collect);

    const killGroup = (reason: ProcessEnd): void => {
      if (end === 'exited') end = reason;
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => killGroup('timed-out'), request.timeoutMs);
    const onAbort = (): void => killGroup('aborted');
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (request.signal.aborted) onAbort();

    let exitSignal: NodeJS.Signals | null = null;
    const finish = (exitCode: number | null, spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      const text = Buffer.concat(chunks).toString('utf8');
      const output = totalBytes > keptBytes ? text + truncationNotice(keptBytes, totalBytes) : text;
      resolvePromise(spawnError === undefined ? { end, exitCode, exitSignal, output } : { end: 'spawn-failed', exitCode, output, spawnError });
    };

    child.on('error', (error) => finish(null, error.message));
    child.on('exit', (code, signal) => {
      exitSignal = signal;
      setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        finish(code);
      }, PIPE_GRACE_MS).unref();
    });
    child.on('close', (code) => finish(code));
  });
}

/** The text a tool returns for a finished process, or the error it throws. */
export function describeProcessResult(result: ProcessResult, timeoutMs: number): { ok: boolean; text: string } {
  const output = result.output.length > 0 ? result.output : '(no output)';
  switch (result.end) {
    case 'spawn-failed':
      return { ok: false, text: `Could not start the command: ${result.spawnError ?? 'unknown error'}` };
    case 'timed-out':
      return { ok: false, text: `Command timed out after ${formatDuration(timeoutMs)} and was killed. Output so far:\n${output}` };
    case 'aborted':
      return { ok: false, text: `Command cancelled. Output so far:\n${output}` };
    case 'exited':
      if (result.exitCode === 0) return { ok: true, text: output };
      if (result.exitCode === null) return { ok: false, text: `Command was killed by ${result.exitSignal ?? 'a signal'}:\n${output}` };
      return { ok: false, text: `Command exited with code ${result.exitCode}${signalNote(result.exitCode)}:\n${output}` };
  }
}

const LIMIT_SIGNALS: Partial<Record<NodeJS.Signals, string>> = {
  SIGKILL: 'killed, e.g. at its CPU time limit',
  SIGXCPU: 'CPU time limit reached',
  SIGXFSZ: 'file size limit reached',
};

/** Shells (and bwrap) report a command killed by signal N as exit code 128 + N. */
function signalNote(exitCode: number): string {
  const name = Object.entries(constants.signals).find(([, number]) => number === exitCode - 128)?.[0] as NodeJS.Signals | undefined;
  if (exitCode <= 128 || name === undefined) return '';
  const meaning = LIMIT_SIGNALS[name];
  return meaning === undefined ? ` (${name})` : ` (${name}: ${meaning})`;
}
