import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { errorOf, inDirectory } from './support/config-directory.js';

const empty = mkdtempSync(join(tmpdir(), 'failover-config-none-'));

describe('fallback models and sub-agents in the configuration', () => {
  it('LLM_FALLBACK_MODELS: [provider:]model, each with its provider\u2019s key and base URL; defaults', () => {
    const config = loadConfig(
      {
        OPENAI_API_KEY: 'sk-openai',
        OPENAI_BASE_URL: 'http://openai.local/v1',
        ANTHROPIC_API_KEY: 'sk-ant',
        ANTHROPIC_BASE_URL: 'http://anthropic.local',
        LLM_MODEL: 'always-overloaded',
        LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5, gpt-4.1-mini ,openai:llama3:8b',
        LLM_MAX_RETRIES: '1',
      },
      { cwd: empty },
    );
    expect(config.agents[0]!.fallbackModels).toEqual([
      expect.objectContaining({ provider: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'sk-ant', baseUrl: 'http://anthropic.local', contextWindow: 200_000, maxRetries: 1 }),
      expect.objectContaining({ provider: 'openai', model: 'gpt-4.1-mini', apiKey: 'sk-openai', baseUrl: 'http://openai.local/v1' }),
      expect.objectContaining({ provider: 'openai', model: 'llama3:8b' }),
    ]);
    expect(config.failoverCooldownMs).toBe(60_000);
    expect(config.subagents).toEqual({ maxDepth: 1, maxParallel: 4 });
    expect(config.agents[0]!.subagents).toBe(true);
    const tuned = loadConfig({ OPENAI_API_KEY: 'k', LLM_FAILOVER_COOLDOWN_MS: '0', SUBAGENT_MAX_DEPTH: '2', SUBAGENT_MAX_PARALLEL: '8' }, { cwd: empty });
    expect(tuned).toMatchObject({ failoverCooldownMs: 0, subagents: { maxDepth: 2, maxParallel: 8 } });
    expect(tuned.agents[0]!.fallbackModels).toEqual([]);
  });

  it('refuses a fallback without a key, or without a model name, naming the variable', () => {
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k', LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5' }, { cwd: empty }))).toBe(
      'ANTHROPIC_API_KEY: required by the fallback model anthropic:claude-haiku-4-5 (LLM_FALLBACK_MODELS)',
    );
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k', LLM_FALLBACK_MODELS: 'anthropic:' }, { cwd: empty }))).toMatch(/^LLM_FALLBACK_MODELS: "anthropic:" names no model/);
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k', SUBAGENT_MAX_PARALLEL: '0' }, { cwd: empty }))).toMatch(/^SUBAGENT_MAX_PARALLEL: /);
    // a gateway never calls a model: no key needed there
    expect(loadConfig({ OPENAI_API_KEY: 'k', ROLE: 'gateway', LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5' }, { cwd: empty }).agents[0]!.fallbackModels).toHaveLength(1);
  });

  it('the config file: fallbackModels as strings or objects with their own key and base URL, and subagents per agent', () => {
    const cwd = inDirectory(`
agents:
  - id: main
    provider: openai
    model: gpt-4o
    fallbackModels:
      - anthropic:claude-haiku-4-5
      - { provider: openai, model: local-model, apiKey: "\${LOCAL_KEY}", baseUrl: "http://local.test/v1", contextWindow: 32000 }
      - gpt-4o-mini
  - id: quiet
    subagents: off
  - id: also-quiet
    subagents: false
`);
    const config = loadConfig({ OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant', LOCAL_KEY: 'sk-local' }, { cwd });
    const [main, quiet, alsoQuiet] = config.agents;
    expect(main!.fallbackModels.map((llm) => [llm.provider, llm.model, llm.apiKey, llm.baseUrl, llm.contextWindow])).toEqual([
      ['anthropic', 'claude-haiku-4-5', 'sk-ant', undefined, 200_000],
      ['openai', 'local-model', 'sk-local', 'http://local.test/v1', 32_000],
      ['openai', 'gpt-4o-mini', 'sk-openai', undefined, 128_000],
    ]);
    expect([main!.subagents, quiet!.subagents, alsoQuiet!.subagents]).toEqual([true, false, false]);
    expect(quiet!.fallbackModels).toEqual([]);
    // LLM_FALLBACK_MODELS is the default agent's and replaces the file's list
    const overridden = loadConfig({ OPENAI_API_KEY: 'sk-openai', LOCAL_KEY: 'x', LLM_FALLBACK_MODELS: 'gpt-4.1' }, { cwd });
    expect(overridden.agents[0]!.fallbackModels.map((llm) => llm.model)).toEqual(['gpt-4.1']);
  });

  it('the config file: a bad entry or a fallback without a key is reported at its path', () => {
    const bad = inDirectory('agents:\n  - id: main\n    fallbackModels: [{ provider: openai }]\n');
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: bad }))).toMatch(/^bot\.config\.yaml: \/agents\/0\/fallbackModels\/0: /);
    const keyless = inDirectory('agents:\n  - id: main\n    fallbackModels: ["anthropic:claude-haiku-4-5"]\n');
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: keyless }))).toBe(
      'bot.config.yaml: /agents/0/fallbackModels/0: no API key for the fallback anthropic:claude-haiku-4-5: set apiKey (object form) or ANTHROPIC_API_KEY',
    );
    const typo = inDirectory('agents:\n  - id: main\n    subagents: maybe\n');
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: typo }))).toMatch(/^bot\.config\.yaml: \/agents\/0\/subagents: /);
  });
});
