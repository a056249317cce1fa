import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { copyPgliteTemplate } from '../support/pglite-template.js';
import { CLI, startServiceProcess, waitFor } from '../support/service-process.js';

let environment: E2eEnvironment;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  configDirectory = mkdtempSync(join(tmpdir(), 'doctor-e2e-'));
});

afterAll(async () => {
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

function configFileWithBash(): string {
  const file = join(configDirectory, 'bash-agent.yaml');
  writeFileSync(file, 'agents:\n  - id: main\n    tools: { bash: { enabled: true } }\n');
  return file;
}

function cli(command: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, command, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } });
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
    expect(lines.map((line) => line.split(':')[0]!.trim())).toEqual(['ok    configuration', 'ok    redis', 'ok    postgres', 'ok    llm', 'ok    channels', 'ok    sandbox']);
    expect(output).toMatch(/postgres: postgres reachable, 0 pending migration/);
    expect(output).toMatch(/channels: telegram account \d+ ok/);
    expect(output).toMatch(/^ok    sandbox: bubblewrap [\d.]+ at \/\S+ runs commands in new namespaces; processes limited by .*; no agent runs bash or CLI tools in it$/m);
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

  it('checks every fallback model with its own provider\u2019s credentials, one line each', async () => {
    const fallbacks = { LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5,gpt-4.1-mini', ANTHROPIC_API_KEY: 'sk-ant-doctor' };
    const before = environment.anthropic.modelCalls.length;
    const ok = await cli('doctor', environment.env(fallbacks));
    expect(ok.output).toMatch(/^ok    llm fallback \(anthropic:claude-haiku-4-5\): anthropic\/claude-haiku-4-5 answered$/m);
    expect(ok.output).toMatch(/^ok    llm fallback \(openai:gpt-4\.1-mini\): openai\/gpt-4\.1-mini answered$/m);
    const ping = environment.anthropic.modelCalls.slice(before);
    const keyOf = (call: (typeof ping)[number]) => call.headers['x-api-key'] ?? String(call.headers.authorization).replace('Bearer ', '');
    expect(ping.map((call) => [call.body.model, keyOf(call), call.body.max_tokens])).toEqual([['claude-haiku-4-5', 'sk-ant-doctor', 1]]);

    const broken = await cli('doctor', environment.env({ ...fallbacks, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' }));
    expect(broken.code).toBe(1);
    expect(broken.output).toMatch(/^ok    llm: /m);
    expect(broken.output).toMatch(/^FAIL  llm fallback \(anthropic:claude-haiku-4-5\): .* — check ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL \(or the fallback's apiKey and baseUrl\) and the model name in LLM_FALLBACK_MODELS or fallbackModels$/m);
    expect(broken.output).toMatch(/^ok    llm fallback \(openai:gpt-4\.1-mini\): /m);
  });

  it('reports the sandbox an agent with bash uses, and fails with the fix when bubblewrap cannot run', async () => {
    const withBash = { CONFIG_FILE: configFileWithBash() };
    const ok = await cli('doctor', environment.env(withBash));
    expect(ok.output).toMatch(/^ok    sandbox: bubblewrap [\d.]+ at \S+ runs commands in new namespaces; .*; sandboxes main\/bash$/m);

    const broken = await cli('doctor', environment.env({ ...withBash, BWRAP_PATH: '/nonexistent/bwrap' }));
    expect(broken.code).toBe(1);
    expect(broken.output).toMatch(
      /^FAIL  sandbox: bubblewrap cannot run: BWRAP_PATH=\/nonexistent\/bwrap is not an executable file; needed by main\/bash — install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap; .*\), or set tools\.bash\.sandbox: off/m,
    );
  });

  it('without bubblewrap, the sandbox line is informational when no agent needs it', async () => {
    const { output } = await cli('doctor', environment.env({ BWRAP_PATH: '/nonexistent/bwrap' }));
    expect(output).toMatch(/^ok    sandbox: bubblewrap not available \(BWRAP_PATH=\/nonexistent\/bwrap is not an executable file\); no agent runs bash or CLI tools in it$/m);
  });

  it('lists every configuration problem in one run, and still checks the rest', async () => {
    const { code, output } = await cli('doctor', environment.env({ PORT: 'eighty', QUEUE_MODE: 'sometimes', TELEGRAM_WEBHOOK_SECRET: '' }));
    expect(code).toBe(1);
    const configuration = output.split('\n').filter((line) => line.startsWith('FAIL  configuration: '));
    expect(configuration).toEqual([
      'FAIL  configuration: PORT: Expected integer (got "eighty") — fix the variable named here (the other checks ran as if it were unset)',
      'FAIL  configuration: QUEUE_MODE: Expected one of: "collect", "followup", "interrupt" (got "sometimes") — fix the variable named here (the other checks ran as if it were unset)',
      'FAIL  configuration: TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_MODE=webhook — fix the variable named here (the other checks ran as if it were unset)',
    ]);
    for (const check of ['redis', 'postgres', 'llm']) expect(output).toMatch(new RegExp(`^ok    ${check}: `, 'm'));
  });

  it('warns, with what to set, when no channel is configured (and does not fail for it)', async () => {
    const { code, output } = await cli('doctor', environment.env({ TELEGRAM_BOT_TOKEN: '' }));
    expect(output).toMatch(
      /^WARN  channels: none configured — nobody can reach this bot: set TELEGRAM_BOT_TOKEN, or SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET \(or SLACK_APP_TOKEN\), or FEISHU_APP_ID with FEISHU_APP_SECRET/m,
    );
    expect(output).not.toMatch(/^FAIL/m);
    expect(code).toBe(0);
  });

  describe('with REDIS_URL unset', () => {
    it('starts the redis-server from PATH once and says it answers', async () => {
      const { output } = await cli('doctor', environment.env({ REDIS_URL: '' }));
      expect(output).toMatch(/^ok    redis: REDIS_URL unset: redis-server [\d.]+ from PATH starts and answers; the service runs one with its data in \S+\/redis$/m);
    });

    it('fails, saying how to get one, when PATH has no redis-server, or one that does not run', async () => {
      const nodeOnly = join(configDirectory, 'no-redis');
      mkdirSync(nodeOnly, { recursive: true });
      const missing = await cli('doctor', { ...environment.env({ REDIS_URL: '' }), PATH: nodeOnly });
      expect(missing.code).toBe(1);
      expect(missing.output).toMatch(/^FAIL  redis: REDIS_URL: not set and no redis-server on PATH\. Install Redis .* — install Redis \(its redis-server\) or set REDIS_URL$/m);

      const broken = join(configDirectory, 'broken-redis');
      mkdirSync(broken, { recursive: true });
      const fake = join(broken, 'redis-server');
      writeFileSync(fake, '#!/bin/sh\nif [ "$1" = --version ]; then echo "Redis server v=7.2.0"; exit 0; fi\necho "FATAL: cannot load libssl" >&2\necho "*** FATAL CONFIG FILE ERROR ***"\nexit 1\n');
      chmodSync(fake, 0o755);
      const failing = await cli('doctor', { ...environment.env({ REDIS_URL: '' }), PATH: `${broken}:${process.env.PATH}` });
      expect(failing.code).toBe(1);
      expect(failing.output).toMatch(/^FAIL  redis: redis-server exited with code 1: \*\*\* FATAL CONFIG FILE ERROR \*\*\*/m);
    });
  });

  it('with the service running in DATA_DIR on its embedded stores, checks it through its /readyz and opens nothing of it', async () => {
    const embedded = { REDIS_URL: '', DATABASE_URL: '' };
    // its embedded database already made (the migrated template), as a service started before would have left it
    await copyPgliteTemplate(environment.dataDir);
    const service = await startServiceProcess(environment.env(embedded));
    try {
      const { code, output } = await cli('doctor', environment.env(embedded));
      expect(output).toMatch(new RegExp(`^ok    service: running in DATA_DIR: process ${service.child.pid} \\(chatbot start, since [^,]+, ${service.url}\\); ${service.url}/readyz answers ready$`, 'm'));
      expect(output).toMatch(new RegExp(`^ok    redis: its redis-server \\(REDIS_URL unset\\) belongs to the running service \\(process ${service.child.pid}\\), which says it answers; not opened here$`, 'm'));
      expect(output).toMatch(/^ok    postgres: the embedded database \(PGlite, DATABASE_URL unset\) belongs to the running service .*; not opened here$/m);
      expect(code).toBe(0);

      const pairing = await cli('pairing', environment.env(embedded), ['list']);
      expect(pairing.code).toBe(1);
      expect(pairing.output.trim().split('\n')).toHaveLength(1);
      expect(pairing.output).toContain(`the service is running on the embedded database under ${environment.dataDir}: process ${service.child.pid} (chatbot start`);

      // the service was not disturbed: it still answers and stores
      const chatId = 6101;
      await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, 'still fine?'));
      await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === chatId), { what: 'the answer' });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 60_000);
});
