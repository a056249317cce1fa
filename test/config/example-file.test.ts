import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('bot.config.example.yaml', () => {
  it('is a valid config file (the README points at it)', () => {
    const config = loadConfig(
      {
        CONFIG_FILE: 'bot.config.example.yaml',
        OPENAI_API_KEY: 'sk-example',
        SUPPORT_ANTHROPIC_KEY: 'sk-ant-example',
        TELEGRAM_BOT_TOKEN_MAIN: '1:main',
        TELEGRAM_WEBHOOK_SECRET_MAIN: 'main-secret',
        TELEGRAM_BOT_TOKEN_SUPPORT: '2:support',
        TELEGRAM_WEBHOOK_SECRET_SUPPORT: 'support-secret',
        SLACK_BOT_TOKEN_WORKSPACE: 'xoxb-example',
        SLACK_SIGNING_SECRET_WORKSPACE: 'signing',
      },
      { cwd: ROOT },
    );
    expect(config.agents.map((agent) => agent.id)).toEqual(['main', 'support']);
    // an agent's own output cap; the others get LLM_MAX_OUTPUT_TOKENS' default
    expect(config.agents.map((agent) => agent.llm.maxOutputTokens)).toEqual([4096, 2048]);
    expect(config.agents.map((agent) => agent.models.map((model) => `${model.provider}:${model.model}`))).toEqual([['openai:gpt-4o', 'openai:gpt-4.1-mini'], []]);
    expect(config.accounts.telegram.map((account) => account.name)).toEqual(['main', 'support']);
    expect(config.dmPolicy).toBe('pairing');
  });
});
