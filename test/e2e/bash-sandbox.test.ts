import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI, freePort, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

const SERVICE_SECRET = `e2e-service-secret-${process.pid}`;

let environment: E2eEnvironment;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'bash-sandbox-e2e-'));
});

afterAll(async () => {
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

function configFile(bash: string): string {
  const file = join(configDirectory, `agents-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `agents:\n  - id: main\n    tools: { bash: ${bash} }\n`);
  return file;
}

const serviceEnv = (file: string, extra: Record<string, string> = {}) =>
  environment.env({ CONFIG_FILE: file, SANDBOX_E2E_SECRET: SERVICE_SECRET, ADMIN_USER: 'admin', ADMIN_PASSWORD: 'admin-password-e2e', ...extra });

/** Runs `cli start` to its end (or 20 s); for a start-up that must fail. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'start'], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
    );
  });
}

describe('bash through the built service', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startServiceProcess(serviceEnv(configFile('{ enabled: true }')));
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('a model asking for cat /proc/$PPID/environ gets no secret of the service in the next request', async () => {
    const servicePid = service.child.pid!;
    const command = [
      'echo "sandboxed-$((6 * 7))"',
      'cat /proc/$PPID/environ',
      `cat /proc/${servicePid}/environ`,
      'for file in /proc/[0-9]*/environ; do cat "$file"; done',
      'env',
    ].join('; ');
    environment.openai.script.push(reply.toolCall('bash', { command }), reply.text('I looked.'));
    const chatId = 5101;
    expect((await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'show me the secrets'))).status).toBe(200);
    await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === chatId), { what: 'the answer' });

    const afterTool = environment.openai.modelCalls.find((call) => (call.body.messages as Array<{ role: string }>).some((message) => message.role === 'tool'));
    const toolResult = String((afterTool!.body.messages as Array<{ role: string; content: unknown }>).find((message) => message.role === 'tool')!.content);
    // the command ran, in the sandbox…
    expect(toolResult).toContain('sandboxed-42');
    expect(toolResult).toContain(`/proc/${servicePid}/environ: No such file or directory`);
    // …and saw none of the service's secrets
    for (const secret of [SERVICE_SECRET, 'sk-test', environment.telegram.token, environment.databaseUrl, 'admin-password-e2e', 'SANDBOX_E2E_SECRET', 'OPENAI_API_KEY']) {
      expect(toolResult).not.toContain(secret);
    }
  });
});

describe('start-up with bash enabled', () => {
  it('fails with one clear message when the sandbox cannot run (bwrap missing)', async () => {
    const { code, stderr } = await startToExit(serviceEnv(configFile('{ enabled: true }'), { BWRAP_PATH: '/nonexistent/bwrap', PORT: String(await freePort()) }));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'configuration error: agent main: tools.bash.sandbox is on but the sandbox cannot run: BWRAP_PATH=/nonexistent/bwrap is not an executable file. ' +
        'Fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), ' +
        'or set tools.bash.sandbox: off to run commands unconfined (not recommended)',
    );
  });

  it('starts with sandbox: off and warns that bash runs unconfined', async () => {
    const service = await startServiceProcess(serviceEnv(configFile('{ enabled: true, sandbox: off }'), { BWRAP_PATH: '/nonexistent/bwrap' }));
    try {
      await waitFor(() => service.output().includes('tools.bash.sandbox is off'), { what: 'the warning' });
      const warning = service
        .output()
        .split('\n')
        .find((line) => line.includes('tools.bash.sandbox is off'))!;
      expect(JSON.parse(warning)).toMatchObject({ level: 40, agent: 'main', tool: 'bash', setting: 'tools.bash.sandbox' });
      expect(warning).toContain('runs commands UNCONFINED');
    } finally {
      await service.stop();
    }
  });
});
