import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { errorOf, inDirectory } from './support/config-directory.js';

const empty = mkdtempSync(join(tmpdir(), 'model-choices-config-none-'));
const chosen = (config: ReturnType<typeof loadConfig>, index = 0) => config.agents[index]!.models.map((llm) => [llm.provider, llm.model, llm.apiKey, llm.baseUrl]);

describe('the models a chat may choose (/model) in the configuration', () => {
  it('LLM_MODELS: [provider:]model with its provider’s key and base URL; the agent’s own model and repeats left out; unset: none', () => {
    const env = { OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: 'http://anthropic.local', LLM_MODEL: 'gpt-4o-mini' };
    const config = loadConfig({ ...env, LLM_MODELS: 'gpt-4o, anthropic:claude-haiku-4-5, openai:gpt-4o-mini, gpt-4o' }, { cwd: empty });
    expect(chosen(config)).toEqual([
      ['openai', 'gpt-4o', 'sk-openai', undefined],
      ['anthropic', 'claude-haiku-4-5', 'sk-ant', 'http://anthropic.local'],
    ]);
    expect(loadConfig(env, { cwd: empty }).agents[0]!.models).toEqual([]);
    expect(errorOf(() => loadConfig({ ...env, LLM_MODELS: 'anthropic:' }, { cwd: empty }))).toMatch(/^LLM_MODELS: "anthropic:" names no model/);
  });

  it('the config file’s `models` per agent (strings or objects); LLM_MODELS wins for the default agent; a model without a key is named', () => {
    const directory = inDirectory(`
agents:
  - id: main
    models: [gpt-4.1]
  - id: writer
    provider: anthropic
    model: claude-sonnet-4-6
    models:
      - claude-haiku-4-5
      - { provider: openai, model: gpt-4o, apiKey: sk-own, baseUrl: http://own.local/v1 }
`);
    const config = loadConfig({ OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant' }, { cwd: directory });
    expect(chosen(config)).toEqual([['openai', 'gpt-4.1', 'sk-openai', undefined]]);
    expect(chosen(config, 1)).toEqual([
      ['anthropic', 'claude-haiku-4-5', 'sk-ant', undefined],
      ['openai', 'gpt-4o', 'sk-own', 'http://own.local/v1'],
    ]);
    expect(chosen(loadConfig({ OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant', LLM_MODELS: 'o3' }, { cwd: directory }))).toEqual([['openai', 'o3', 'sk-openai', undefined]]);

    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: inDirectory('agents:\n  - id: main\n    models: ["anthropic:claude-haiku-4-5"]\n') }))).toBe(
      'bot.config.yaml: /agents/0/models: no API key for anthropic:claude-haiku-4-5: set apiKey (object form) or ANTHROPIC_API_KEY',
    );
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k', LLM_MODELS: 'anthropic:claude-haiku-4-5' }, { cwd: empty }))).toBe(
      'ANTHROPIC_API_KEY: required by the model anthropic:claude-haiku-4-5 (LLM_MODELS)',
    );
  });

  it('what a choice applies to: `session` by default; MODEL_CHOICE for the default agent, `modelChoice` per agent in the file; anything else is named', () => {
    const env = { OPENAI_API_KEY: 'sk-openai' };
    expect(loadConfig(env, { cwd: empty }).agents[0]!.modelChoice).toBe('session');
    expect(loadConfig({ ...env, MODEL_CHOICE: 'chat' }, { cwd: empty }).agents[0]!.modelChoice).toBe('chat');
    const directory = inDirectory('agents:\n  - id: main\n  - id: writer\n    modelChoice: chat\n');
    expect(loadConfig(env, { cwd: directory }).agents.map((agent) => agent.modelChoice)).toEqual(['session', 'chat']);
    expect(loadConfig({ ...env, MODEL_CHOICE: 'chat' }, { cwd: directory }).agents.map((agent) => agent.modelChoice)).toEqual(['chat', 'chat']);
    expect(errorOf(() => loadConfig({ ...env, MODEL_CHOICE: 'topic' }, { cwd: empty }))).toMatch(/^MODEL_CHOICE: /);
    expect(errorOf(() => loadConfig(env, { cwd: inDirectory('agents:\n  - id: main\n    modelChoice: everyone\n') }))).toMatch(/^bot\.config\.yaml: \/agents\/0\/modelChoice: /);
  });
});
