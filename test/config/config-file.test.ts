import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const TOKEN_A = '111:alpha-token';
const TOKEN_B = '222:beta-token';

/** A directory holding `bot.config.yaml` with this text. */
function withFile(text: string, name = 'bot.config.yaml'): string {
  const directory = mkdtempSync(join(tmpdir(), 'config-file-'));
  writeFileSync(join(directory, name), text);
  return directory;
}

function load(text: string, env: Record<string, string> = {}) {
  return loadConfig({ OPENAI_API_KEY: 'sk-env', ...env }, { cwd: withFile(text) });
}

function errorOf(text: string, env: Record<string, string> = {}): string {
  try {
    load(text, env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

const GOOD = `
agents:
  - id: main
    provider: openai
    model: gpt-alpha
    systemPrompt: You are Alpha.
    maxIterations: 7
  - id: support
    provider: anthropic
    model: claude-beta
    apiKey: \${SUPPORT_KEY}
    baseUrl: http://127.0.0.1:9/anthropic
    systemPrompt: You are Beta.
    tools:
      bash: { enabled: true, timeout_seconds: 5 }
      cli:
        - name: deploy
          description: Deploys
          category: admin
          cmd: /bin/true
          env: { HOME_DIR: "\${HOME_DIR_AT_RUN_TIME}" }
    toolPolicy: { allowAdminTools: [deploy] }
    schedules: { allowTools: [bash, "crm__*"] }
channels:
  telegram:
    streaming: all
    accounts:
      - name: alpha
        token: \${TG_ALPHA}
        mode: webhook
        webhookSecret: alpha-secret
      - name: beta
        agent: support
        token: ${TOKEN_B}
        mode: polling
        apiRoot: http://127.0.0.1:9/beta
        queueMode: followup
    groups:
      -1001:
        requireMention: false
        systemPrompt: Be brief here.
  slack:
    accounts:
      - name: work
        botToken: xoxb-1
        appToken: xapp-1
bindings:
  - agent: support
    channel: telegram
    account: alpha
    chat: -1002
access:
  dmPolicy: pairing
  allowFrom: ["telegram:42"]
  groupAllowlist: ["telegram:-1001", "telegram:-1002"]
  userRateLimit: 5
`;

const GOOD_ENV = { SUPPORT_KEY: 'sk-support', TG_ALPHA: TOKEN_A };

describe('the config file', () => {
  it('reads agents, accounts, overrides, bindings and access', () => {
    const config = load(GOOD, GOOD_ENV);
    expect(config.agents.map((agent) => [agent.id, agent.llm.provider, agent.llm.model, agent.systemPrompt, agent.maxIterations])).toEqual([
      ['main', 'openai', 'gpt-alpha', 'You are Alpha.', 7],
      ['support', 'anthropic', 'claude-beta', 'You are Beta.', 20],
    ]);
    expect(config.agents[1]!.llm).toMatchObject({ apiKey: 'sk-support', baseUrl: 'http://127.0.0.1:9/anthropic', contextWindow: 200_000 });
    expect(config.agents[1]!.toolPolicy).toEqual({ allowAdminTools: ['deploy'], requireApproval: [] });
    // privileged tools a scheduled run may use: none unless listed
    expect(config.agents.map((agent) => agent.schedules)).toEqual([{ allowTools: [] }, { allowTools: ['bash', 'crm__*'] }]);
    // a CLI tool's env keeps its reference: it is read from the host when the tool runs
    expect(config.agents[1]!.tools.cli![0]!.env).toEqual({ HOME_DIR: '${HOME_DIR_AT_RUN_TIME}' });
    expect(config.llm.model).toBe('gpt-alpha');
    expect(config.accounts.telegram.map((account) => [account.name, account.agentId, account.config.token, account.config.mode])).toEqual([
      ['alpha', 'main', TOKEN_A, 'webhook'],
      ['beta', 'support', TOKEN_B, 'polling'],
    ]);
    expect(config.accounts.telegram[1]!.overrides).toEqual({ queueMode: 'followup' });
    expect(config.telegram).toEqual(config.accounts.telegram[0]!.config);
    expect(config.slack).toMatchObject({ botToken: 'xoxb-1', appToken: 'xapp-1', apiUrl: 'https://slack.com/api/' });
    expect(config.channelSettings.telegram).toEqual({
      overrides: { streaming: 'all' },
      groups: { '-1001': { requireMention: false, systemPrompt: 'Be brief here.' } },
    });
    expect(config.bindings).toEqual([{ agentId: 'support', channel: 'telegram', account: 'alpha', chatId: '-1002' }]);
    expect(config).toMatchObject({ dmPolicy: 'pairing', allowFrom: ['telegram:42'], groupAllowlist: ['telegram:-1001', 'telegram:-1002'], userRateLimit: 5 });
  });

  it('names the file and the path of a bad field, on one line', () => {
    const message = errorOf(`agents:\n  - id: main\n  - id: second\n    model: 5\n`);
    expect(message).toBe('bot.config.yaml: /agents/1/model: Expected string');
  });

  it.each([
    [`agents:\n  - id: main\n    modle: gpt\n`, 'bot.config.yaml: /agents/0/modle: Unexpected property'],
    [`agents:\n  - id: main\n    schedules: { allowTool: [bash] }\n`, 'bot.config.yaml: /agents/0/schedules/allowTool: Unexpected property'],
    [`channels:\n  telegram:\n    streaming: sometimes\n`, 'bot.config.yaml: /channels/telegram/streaming: Expected one of: "off", "dm", "all"'],
    [`channels:\n  telegram:\n    groups:\n      -5:\n        queueMode: later\n`, 'bot.config.yaml: /channels/telegram/groups/-5/queueMode: Expected one of: "collect", "followup", "interrupt"'],
    [`channels:\n  telegram:\n    accounts:\n      - name: a\n        token: nope\n`, "bot.config.yaml: /channels/telegram/accounts/0/token: Expected string to match '^[0-9]+:[A-Za-z0-9_-]+$'"],
    [`agents: []\n`, 'bot.config.yaml: /agents: Expected array length to be greater or equal to 1'],
    [`agents:\n  - id: main\n  - id: main\n`, 'bot.config.yaml: /agents/1/id: duplicate agent id "main" (also /agents/0)'],
    [`channels:\n  telegram:\n    accounts:\n      - { name: a, token: "1:a", agent: ghost }\n`, 'bot.config.yaml: /channels/telegram/accounts/0/agent: unknown agent "ghost"'],
    [`bindings:\n  - { agent: main, channel: slack, account: nowhere }\n`, 'bot.config.yaml: /bindings/0/account: no slack account named "nowhere"'],
    [`bindings:\n  - { agent: ghost, channel: slack }\n`, 'bot.config.yaml: /bindings/0/agent: unknown agent "ghost"'],
    [`access:\n  dmPolicy: everyone\n`, 'bot.config.yaml: /access/dmPolicy: Expected one of: "open", "allowlist", "pairing", "disabled"'],
  ])('reports %j precisely', (text, expected) => {
    const message = errorOf(text);
    expect(message).toBe(expected);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('reports invalid YAML with its line, on one line', () => {
    const message = errorOf('agents:\n  - id: main\n    model: [unclosed\n');
    expect(message).toMatch(/^bot\.config\.yaml: invalid YAML: .*line \d+/);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('checks each account at its own path (a webhook without a secret)', () => {
    const text = `channels:\n  telegram:\n    accounts:\n      - { name: a, token: "1:a" }\n      - { name: b, token: "2:b", mode: webhook }\n`;
    expect(errorOf(text)).toBe('bot.config.yaml: /channels/telegram/accounts/1/webhookSecret: required when TELEGRAM_MODE=webhook');
  });

  it('asks for the key of an agent whose provider has none', () => {
    const text = `agents:\n  - id: main\n  - id: claude\n    provider: anthropic\n`;
    expect(errorOf(text)).toMatch(/^bot\.config\.yaml: \/agents\/1\/apiKey: required for provider anthropic: set apiKey .* or ANTHROPIC_API_KEY$/);
    expect(load(text, { ANTHROPIC_API_KEY: 'sk-ant' }).agents[1]!.llm.apiKey).toBe('sk-ant');
    expect(load(text, { ROLE: 'gateway' }).agents).toHaveLength(2);
  });

  it('refuses two accounts of the same bot', () => {
    const text = `channels:\n  telegram:\n    accounts:\n      - { name: a, token: "1:a" }\n      - { name: b, token: "1:a" }\n`;
    expect(errorOf(text)).toBe('bot.config.yaml: /channels/telegram/accounts/1: the same bot as account 0');
  });
});

describe('${ENV_VAR} references', () => {
  it('are replaced in every string outside tool declarations; $${ is a literal', () => {
    const text = 'agents:\n  - id: main\n    systemPrompt: "Costs ${PRICE}, in ${CURRENCY}: $${literal}"\n';
    const config = load(text, { PRICE: '5', CURRENCY: 'EUR' });
    expect(config.systemPrompt).toBe('Costs 5, in EUR: ${literal}');
  });

  it('name the field whose variable is not set, without showing any secret', () => {
    const message = errorOf(GOOD, { TG_ALPHA: TOKEN_A });
    expect(message).toBe('bot.config.yaml: /agents/1/apiKey: environment variable SUPPORT_KEY is not set');
  });

  it('never put a secret value into an error', () => {
    const message = errorOf(`channels:\n  telegram:\n    accounts:\n      - { name: a, token: "\${SECRET_TOKEN}" }\n`, { SECRET_TOKEN: 'very secret value' });
    expect(message).not.toContain('very secret value');
    expect(message).toMatch(/^bot\.config\.yaml: \/channels\/telegram\/accounts\/0\/token: /);
  });
});

describe('the environment and the file together', () => {
  it('lets the environment override the default agent and the default accounts, not the others', () => {
    const config = load(GOOD, {
      ...GOOD_ENV,
      LLM_MODEL: 'gpt-from-env',
      SYSTEM_PROMPT: 'From env.',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/openai',
      TELEGRAM_BOT_TOKEN: '333:env-token',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:9/tg',
      DM_POLICY: 'open',
      USER_RATE_LIMIT: '0',
      GROUP_ALLOWLIST: 'slack:C1',
    });
    expect(config.agents[0]!.llm).toMatchObject({ model: 'gpt-from-env', apiKey: 'sk-env', baseUrl: 'http://127.0.0.1:9/openai' });
    expect(config.agents[0]!.systemPrompt).toBe('From env.');
    expect(config.agents[1]!.llm.model).toBe('claude-beta');
    expect(config.agents[1]!.systemPrompt).toBe('You are Beta.');
    expect(config.accounts.telegram[0]!.config).toMatchObject({ token: '333:env-token', apiRoot: 'http://127.0.0.1:9/tg' });
    // an account that sets its own API root keeps it; one that does not falls back to the variable
    expect(config.accounts.telegram[1]!.config).toMatchObject({ token: TOKEN_B, apiRoot: 'http://127.0.0.1:9/beta' });
    expect(config).toMatchObject({ dmPolicy: 'open', userRateLimit: 0, groupAllowlist: ['slack:C1'], allowFrom: ['telegram:42'] });
  });

  it('keeps working from the environment alone', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk', TELEGRAM_BOT_TOKEN: '1:abc', LLM_MODEL: 'm' }, { cwd: mkdtempSync(join(tmpdir(), 'no-file-')) });
    expect(config.configFile).toBeUndefined();
    expect(config.agents.map((agent) => [agent.id, agent.llm.model])).toEqual([['main', 'm']]);
    expect(config.accounts.telegram.map((account) => [account.name, account.agentId, account.config.token])).toEqual([['default', 'main', '1:abc']]);
    expect(config.bindings).toEqual([]);
  });

  it('TELEGRAM_NEW_CONVERSATION_TOPIC: off by default; on for the environment’s account', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'no-file-'));
    expect(loadConfig({ OPENAI_API_KEY: 'sk', TELEGRAM_BOT_TOKEN: '1:abc' }, { cwd }).telegram).toMatchObject({ newConversationTopic: false });
    expect(loadConfig({ OPENAI_API_KEY: 'sk', TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_NEW_CONVERSATION_TOPIC: 'true' }, { cwd }).telegram).toMatchObject({ newConversationTopic: true });
  });

  it('reads the file CONFIG_FILE names (relative to the working directory) and refuses a missing one', () => {
    const directory = withFile('agents:\n  - id: other\n', 'custom.yaml');
    const config = loadConfig({ OPENAI_API_KEY: 'sk', CONFIG_FILE: 'custom.yaml' }, { cwd: directory });
    expect(config.agents[0]!.id).toBe('other');
    expect(() => loadConfig({ OPENAI_API_KEY: 'sk', CONFIG_FILE: 'missing.yaml' }, { cwd: directory })).toThrow('CONFIG_FILE: missing.yaml does not exist');
    expect(errorOfEnv({ CONFIG_FILE: 'custom.yaml', DM_POLICY: 'nobody' }, directory)).toMatch(/^DM_POLICY: Expected one of: "open", "allowlist", "pairing", "disabled"/);
  });

  it('validates GROUP_ALLOWLIST and ALLOW_FROM entries', () => {
    const directory = mkdtempSync(join(tmpdir(), 'no-file-'));
    expect(errorOfEnv({ GROUP_ALLOWLIST: 'telegram:-1,-2' }, directory)).toBe(
      'GROUP_ALLOWLIST: entries are channel:id with channel telegram, slack or feishu (got "-2")',
    );
    expect(loadConfig({ OPENAI_API_KEY: 'sk', GROUP_ALLOWLIST: ' telegram:-1 , slack:C2 ', USER_RATE_LIMIT: '3' }, { cwd: directory })).toMatchObject({
      groupAllowlist: ['telegram:-1', 'slack:C2'],
      userRateLimit: 3,
    });
  });
});

function errorOfEnv(env: Record<string, string>, cwd: string): string {
  try {
    loadConfig({ OPENAI_API_KEY: 'sk', ...env }, { cwd });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}
