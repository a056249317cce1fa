import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { errorOf, inDirectory } from './support/config-directory.js';

describe('the agent key `assistant` (Slack assistant threads)', () => {
  it('gives an agent its greeting and prompts; an agent without it has none (the channel\u2019s built-in ones apply)', () => {
    const cwd = inDirectory(`
agents:
  - id: main
    assistant:
      greeting: Hello from main.
      prompts:
        - { title: Summarize, message: Summarize the last document. }
  - id: quiet
    assistant: { prompts: [] }
  - id: plain
`);
    const [main, quiet, plain] = loadConfig({ OPENAI_API_KEY: 'k' }, { cwd }).agents;
    expect(main!.assistant).toEqual({ greeting: 'Hello from main.', prompts: [{ title: 'Summarize', message: 'Summarize the last document.' }] });
    expect(quiet!.assistant).toEqual({ prompts: [] });
    expect(plain!.assistant).toBeUndefined();
  });

  it('refuses more than four prompts, a prompt without its message, an unknown key and an empty greeting, at their path', () => {
    const five = Array.from({ length: 5 }, (_, index) => `        - { title: t${index}, message: m${index} }`).join('\n');
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: inDirectory(`agents:\n  - id: main\n    assistant:\n      prompts:\n${five}\n`) }))).toMatch(
      /^bot\.config\.yaml: \/agents\/0\/assistant\/prompts: /,
    );
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: inDirectory('agents:\n  - id: main\n    assistant: { prompts: [{ title: t }] }\n') }))).toMatch(
      /^bot\.config\.yaml: \/agents\/0\/assistant\/prompts\/0/,
    );
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: inDirectory('agents:\n  - id: main\n    assistant: { greting: hi }\n') }))).toMatch(/^bot\.config\.yaml: \/agents\/0\/assistant/);
    expect(errorOf(() => loadConfig({ OPENAI_API_KEY: 'k' }, { cwd: inDirectory('agents:\n  - id: main\n    assistant: { greeting: "" }\n') }))).toMatch(
      /^bot\.config\.yaml: \/agents\/0\/assistant\/greeting: /,
    );
  });

  it('bot.config.example.yaml shows one', () => {
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
      { cwd: join(import.meta.dirname, '..', '..') },
    );
    expect(config.agents[0]!.assistant?.prompts).toHaveLength(2);
  });
});
