import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const base = { OPENAI_API_KEY: 'sk-test' };

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('loadConfig', () => {
  it('applies the contract defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      role: 'all',
      queuePrefix: 'bot',
      workerConcurrency: 32,
      groupMaxConcurrent: 3,
      queueMode: 'collect',
      shutdownGraceMs: 25_000,
      maxIterations: 20,
      dmPolicy: 'open',
      groupRequireMention: true,
      inputGuard: 'warn',
      logLevel: 'info',
      telegram: undefined,
      admin: undefined,
    });
    expect(config.llm).toMatchObject({ provider: 'openai', stream: true, apiKey: 'sk-test' });
  });

  it('caps every request at LLM_MAX_OUTPUT_TOKENS (4096) and bounds compaction by COMPACTION_TIMEOUT_MS (30 s)', () => {
    expect(loadConfig(base)).toMatchObject({ compactionTimeoutMs: 30_000, llm: { maxOutputTokens: 4096 } });
    expect(loadConfig({ ...base, LLM_MAX_OUTPUT_TOKENS: '1024', COMPACTION_TIMEOUT_MS: '5000' })).toMatchObject({ compactionTimeoutMs: 5000, llm: { maxOutputTokens: 1024 } });
    expect(errorOf({ ...base, LLM_MAX_OUTPUT_TOKENS: '0' })).toMatch(/^LLM_MAX_OUTPUT_TOKENS: /);
    expect(errorOf({ ...base, COMPACTION_TIMEOUT_MS: '10' })).toMatch(/^COMPACTION_TIMEOUT_MS: /);
  });

  it('picks anthropic when only its key is set', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a' }).llm.provider).toBe('anthropic');
  });

  it('converts numbers and booleans from strings', () => {
    const config = loadConfig({ ...base, PORT: '9000', LLM_STREAM: 'false', GROUP_REQUIRE_MENTION: 'false', WORKER_CONCURRENCY: '4' });
    expect([config.port, config.llm.stream, config.groupRequireMention, config.workerConcurrency]).toEqual([9000, false, false, 4]);
  });

  it.each([
    [{ PORT: 'eighty' }, /^PORT: /],
    [{ PORT: '70000' }, /^PORT: /],
    [{ ROLE: 'janitor' }, /^ROLE: /],
    [{ WORKER_CONCURRENCY: '0' }, /^WORKER_CONCURRENCY: /],
    [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL: /],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: /],
    [{ LLM_STREAM: 'maybe' }, /^LLM_STREAM: /],
    [{ TELEGRAM_BOT_TOKEN: 'not-a-token' }, /^TELEGRAM_BOT_TOKEN: .*\(hidden\)/],
  ])('names the variable of a bad value: %o', (env, expected) => {
    const message = errorOf({ ...base, ...env });
    expect(message).toMatch(expected);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('rejects contradictions with the variable to fix', () => {
    expect(errorOf({})).toMatch(/OPENAI_API_KEY or ANTHROPIC_API_KEY/);
    expect(errorOf({ ...base, LLM_PROVIDER: 'anthropic' })).toMatch(/^ANTHROPIC_API_KEY: /);
    expect(errorOf({ ...base, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_MODE: 'webhook' })).toMatch(/^TELEGRAM_WEBHOOK_SECRET: /);
    expect(errorOf({ ...base, ADMIN_USER: 'ops' })).toMatch(/^ADMIN_PASSWORD: /);
    expect(errorOf({ ...base, DM_POLICY: 'allowlist' })).toMatch(/^ALLOW_FROM: /);
  });

  it('never shows a secret in an error', () => {
    const message = errorOf({ ...base, TELEGRAM_BOT_TOKEN: 'super secret value' });
    expect(message).not.toContain('super secret value');
  });

  it('lets a gateway run without an LLM key', () => {
    expect(loadConfig({ ROLE: 'gateway' }).role).toBe('gateway');
  });
});
