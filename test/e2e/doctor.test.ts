import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI } from '../support/service-process.js';

let environment: E2eEnvironment;

beforeAll(async () => {
  environment = await createE2eEnvironment();
});

afterAll(async () => {
  await environment?.close();
});

function cli(command: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, command], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('cli doctor', () => {
  it('checks configuration, Redis, PostgreSQL, the LLM and each channel, one line each, and exits 0 when all pass', async () => {
    const before = await cli('doctor', environment.env());
    expect(before.output).toMatch(/^ok    postgres: postgres reachable, \d+ pending migration\(s\) \(run `cli migrate` or start the service\)$/m);
    const migrated = await cli('migrate', environment.env());
    expect(migrated).toMatchObject({ code: 0, output: 'migrations applied\n' });

    const { code, output } = await cli('doctor', environment.env());
    const lines = output.trim().split('\n');
    expect(lines.map((line) => line.split(':')[0]!.trim())).toEqual(['ok    configuration', 'ok    redis', 'ok    postgres', 'ok    llm', 'ok    channels']);
    expect(output).toMatch(/postgres: postgres reachable, 0 pending migration/);
    expect(output).toMatch(/channels: telegram account \d+ ok/);
    expect(code).toBe(0);
    // the LLM check is one real, tiny request to the configured provider
    const check = environment.openai.modelCalls.at(-1)!;
    expect(check.body.max_tokens ?? check.body.max_completion_tokens).toBe(1);
  });

  it('says what is wrong and what to do, and exits non-zero, when something fails', async () => {
    const { code, output } = await cli('doctor', environment.env({ REDIS_URL: 'redis://127.0.0.1:1', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }));
    expect(code).toBe(1);
    expect(output).toMatch(/^FAIL  redis: .* — start Redis or fix REDIS_URL$/m);
    expect(output).toMatch(/^FAIL  llm: .* — check the API key, LLM_MODEL and the base URL$/m);
    expect(output).toMatch(/^ok    postgres: /m);
  });
});
