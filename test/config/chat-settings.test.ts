import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatSettingsResolver, loadConfig } from '../../src/config/index.js';

function resolverFor(text: string, env: Record<string, string> = {}): ChatSettingsResolver {
  const directory = mkdtempSync(join(tmpdir(), 'chat-settings-'));
  writeFileSync(join(directory, 'bot.config.yaml'), text);
  const resolver = new ChatSettingsResolver(loadConfig({ OPENAI_API_KEY: 'sk', ...env }, { cwd: directory }));
  // account ids are learnt from the platform at start (getMe); here: bot 111 is "alpha", 222 "beta"
  resolver.registerAccount('telegram', '111', 'alpha');
  resolver.registerAccount('telegram', '222', 'beta');
  return resolver;
}

const FILE = `
agents:
  - id: main
  - id: support
  - id: sales
  - id: vip
channels:
  telegram:
    requireMention: true
    systemPrompt: Telegram rule.
    accounts:
      - { name: alpha, token: "111:a" }
      - { name: beta, token: "222:b", agent: support, streaming: off, queueMode: interrupt, systemPrompt: Beta rule. }
    groups:
      "-100":
        requireMention: false
        streaming: all
        queueMode: followup
        systemPrompt: Group rule.
bindings:
  - { agent: sales, channel: telegram, chatType: group }
  - { agent: vip, channel: telegram, account: alpha, chat: "-200" }
  - { agent: vip, channel: telegram, chat: 42 }
  - { agent: support, channel: telegram, account: alpha, chatType: group }
`;

const at = (accountId: string, chatType: 'dm' | 'group', chatId: string) => ({ channel: 'telegram' as const, accountId, chatType, chatId });

describe('bindings', () => {
  const resolver = resolverFor(FILE);

  it('fall back to the account’s agent, then the default agent', () => {
    expect(resolver.resolve(at('111', 'dm', '7')).agentId).toBe('main');
    expect(resolver.resolve(at('222', 'dm', '7')).agentId).toBe('support');
    expect(resolver.resolve({ channel: 'slack', accountId: 'T1', chatType: 'dm', chatId: 'D1' }).agentId).toBe('main');
  });

  it('pick the most specific match: chat, then account, then chat type', () => {
    expect(resolver.resolve(at('111', 'group', '-200')).agentId).toBe('vip'); // chat + account
    expect(resolver.resolve(at('111', 'group', '-300')).agentId).toBe('support'); // account + chat type beats chat type
    expect(resolver.resolve(at('222', 'group', '-300')).agentId).toBe('sales'); // chat type only
    expect(resolver.resolve(at('222', 'dm', '42')).agentId).toBe('vip'); // a chat id written as a number
    expect(resolver.resolve(at('222', 'group', '-200')).agentId).toBe('sales'); // the -200 binding is alpha's only
  });

  it('take the agent from a session key as it is (the gateway already chose it)', () => {
    expect(resolver.forSessionKey('agent:vip:telegram:222:dm:7')?.agentId).toBe('vip');
    expect(resolver.forSessionKey('not-a-session-key')).toBeUndefined();
  });
});

describe('overrides', () => {
  const resolver = resolverFor(FILE);

  it('apply channel < account < group, and append every level’s prompt', () => {
    expect(resolver.resolve(at('111', 'dm', '7'))).toMatchObject({
      accountName: 'alpha',
      requireMention: true,
      streaming: 'dm',
      queueMode: 'collect',
      systemPrompt: 'Telegram rule.',
    });
    expect(resolver.resolve(at('222', 'dm', '7'))).toMatchObject({ streaming: 'off', queueMode: 'interrupt', systemPrompt: 'Telegram rule.\n\nBeta rule.' });
    expect(resolver.resolve(at('222', 'group', '-100'))).toMatchObject({
      requireMention: false,
      streaming: 'all',
      queueMode: 'followup',
      systemPrompt: 'Telegram rule.\n\nBeta rule.\n\nGroup rule.',
    });
  });

  it('give the queue mode of a session from its key (what the scheduler asks)', () => {
    expect(resolver.forSessionKey('agent:main:telegram:111:group:-100')?.queueMode).toBe('followup');
    expect(resolver.forSessionKey('agent:main:telegram:111:group:-100:topic:5')?.queueMode).toBe('followup');
    expect(resolver.forSessionKey('agent:support:telegram:222:dm:9')?.queueMode).toBe('interrupt');
    expect(resolver.forSessionKey('agent:main:telegram:111:dm:9')?.queueMode).toBe('collect');
  });

  it('start from the environment’s defaults; LLM_STREAM=false turns streaming off everywhere', () => {
    const quiet = resolverFor(FILE, { GROUP_REQUIRE_MENTION: 'false', QUEUE_MODE: 'followup', LLM_STREAM: 'false' });
    expect(quiet.resolve(at('111', 'group', '-300'))).toMatchObject({ requireMention: true, queueMode: 'followup', streaming: 'off' });
    const plain = resolverFor('agents: [{ id: main }]\n', { GROUP_REQUIRE_MENTION: 'false', QUEUE_MODE: 'interrupt' });
    expect(plain.resolve(at('111', 'group', '-300'))).toMatchObject({ requireMention: false, queueMode: 'interrupt', streaming: 'dm', systemPrompt: undefined });
  });
});

describe('resolved settings are kept', () => {
  it('the same object for the same chat and session key, until an account is learnt', () => {
    const directory = mkdtempSync(join(tmpdir(), 'chat-settings-'));
    writeFileSync(join(directory, 'bot.config.yaml'), FILE);
    const resolver = new ChatSettingsResolver(loadConfig({ OPENAI_API_KEY: 'sk' }, { cwd: directory }));
    // bot 111 not known yet: its group gets the chat-type binding, not alpha's
    const before = resolver.resolve(at('111', 'group', '-300'));
    expect(before.agentId).toBe('sales');
    expect(resolver.resolve(at('111', 'group', '-300'))).toBe(before);
    expect(Object.isFrozen(before)).toBe(true);
    const bySession = resolver.forSessionKey('agent:sales:telegram:111:group:-300');
    expect(bySession).toBe(before);
    expect(resolver.forSessionKey('agent:sales:telegram:111:group:-300')).toBe(bySession);
    // chats without settings of their own share one object
    expect(resolver.resolve(at('111', 'dm', '8'))).toBe(resolver.resolve(at('111', 'dm', '9')));
    expect(resolver.resolve(at('111', 'group', '-100'))).not.toBe(resolver.resolve(at('111', 'group', '-300')));
    // a session of another agent than the chat's own keeps its agent
    expect(resolver.forSessionKey('agent:main:telegram:111:group:-300')?.agentId).toBe('main');

    resolver.registerAccount('telegram', '111', 'alpha');
    expect(resolver.resolve(at('111', 'group', '-300')).agentId).toBe('support');
    expect(resolver.forSessionKey('agent:sales:telegram:111:group:-300')?.agentId).toBe('sales');
    expect(resolver.forSessionKey('agent:sales:telegram:111:group:-300')?.systemPrompt).toBe('Telegram rule.');
  });
});
