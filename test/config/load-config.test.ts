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
      // issue 23: a turn waiting on the model costs little; one process carries rate × model latency (CONTRACT §2 said 32)
      workerConcurrency: 1000,
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

  it('TRUST_PROXY: off by default; a hop count, true, or the proxies\' addresses and CIDRs', () => {
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('reads the failing-turn settings and the queue view’s message text setting, with their defaults', () => {
    expect(loadConfig(base)).toMatchObject({ turnFailingNoticeMs: 30_000, turnRetry: { attempts: 12, firstDelayMs: 2_000, lateRounds: 3, lateRoundDelayMs: 300_000 }, adminShowMessageText: false });
    expect(
      loadConfig({ ...base, TURN_FAILING_NOTICE_MS: '0', TURN_RETRY_ATTEMPTS: '3', TURN_RETRY_FIRST_DELAY_MS: '100', TURN_RETRY_ROUNDS: '0', TURN_RETRY_ROUND_DELAY_MS: '1000', ADMIN_SHOW_MESSAGE_TEXT: 'true' }),
    ).toMatchObject({ turnFailingNoticeMs: 0, turnRetry: { attempts: 3, firstDelayMs: 100, lateRounds: 0, lateRoundDelayMs: 1000 }, adminShowMessageText: true });
    expect(errorOf({ ...base, TURN_RETRY_ATTEMPTS: '0' })).toMatch(/^TURN_RETRY_ATTEMPTS: /);
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
    [{ TRUST_PROXY: 'the load balancer' }, /^TRUST_PROXY: /],
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

  it('reads the database settings: a direct migration URL, the pooler, and their contradictions', () => {
    const pooled = 'postgres://bot:secret@pgbouncer.internal:6432/bot';
    const direct = 'postgres://bot:secret@db.internal:5432/bot';
    expect(loadConfig(base)).toMatchObject({ databaseUrl: undefined, databaseMigrationUrl: undefined, databasePooler: 'none' });
    expect(loadConfig({ ...base, DATABASE_URL: pooled, DATABASE_MIGRATION_URL: direct, DATABASE_POOLER: 'transaction' })).toMatchObject({
      databaseUrl: pooled,
      databaseMigrationUrl: direct,
      databasePooler: 'transaction',
    });
    // a separate migration URL without a pooler is fine (e.g. a role allowed to change the schema)
    expect(loadConfig({ ...base, DATABASE_URL: direct, DATABASE_MIGRATION_URL: 'postgres://owner@db.internal/bot' }).databaseMigrationUrl).toBe('postgres://owner@db.internal/bot');

    expect(errorOf({ ...base, DATABASE_POOLER: 'statement' })).toMatch(/^DATABASE_POOLER: /);
    expect(errorOf({ ...base, DATABASE_MIGRATION_URL: 'mysql://db' })).toMatch(/^DATABASE_MIGRATION_URL: /);
    expect(errorOf({ ...base, DATABASE_MIGRATION_URL: direct })).toMatch(/^DATABASE_MIGRATION_URL: set without DATABASE_URL/);
    expect(errorOf({ ...base, DATABASE_POOLER: 'transaction' })).toMatch(/^DATABASE_POOLER: transaction needs DATABASE_URL/);
    expect(errorOf({ ...base, DATABASE_URL: pooled, DATABASE_POOLER: 'transaction' })).toMatch(/^DATABASE_MIGRATION_URL: required with DATABASE_POOLER=transaction/);
    // the same address as the pooler, however written: user, password, parameters and the default port aside
    for (const same of ['postgres://other@PGBOUNCER.internal:6432/bot?sslmode=require', 'postgresql://pgbouncer.internal:6432/bot']) {
      expect(errorOf({ ...base, DATABASE_URL: pooled, DATABASE_MIGRATION_URL: same, DATABASE_POOLER: 'transaction' })).toMatch(/^DATABASE_MIGRATION_URL: the same address as DATABASE_URL/);
    }
    expect(errorOf({ ...base, DATABASE_URL: 'postgres://db.internal/bot', DATABASE_MIGRATION_URL: 'postgres://db.internal:5432/bot', DATABASE_POOLER: 'transaction' })).toMatch(
      /^DATABASE_MIGRATION_URL: the same address/,
    );
    for (const message of [errorOf({ ...base, DATABASE_URL: pooled, DATABASE_POOLER: 'transaction' }), errorOf({ ...base, DATABASE_URL: pooled, DATABASE_MIGRATION_URL: pooled, DATABASE_POOLER: 'transaction' })]) {
      expect(message).not.toContain('secret');
      expect(message.split('\n')).toHaveLength(1);
    }
  });

  it('never shows a secret in an error', () => {
    const message = errorOf({ ...base, TELEGRAM_BOT_TOKEN: 'super secret value' });
    expect(message).not.toContain('super secret value');
  });

  it('lets a gateway run without an LLM key', () => {
    expect(loadConfig({ ROLE: 'gateway' }).role).toBe('gateway');
  });
});
