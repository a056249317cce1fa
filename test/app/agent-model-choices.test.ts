import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentRuntimes } from '../../src/agent-runtimes.js';
import { ChatSettingsResolver } from '../../src/config/chat-settings.js';
import { loadConfig } from '../../src/config/index.js';
import type { InboundMessage } from '../../src/core/inbound-message.js';
import { FailoverChatModel, type ChatModel, type FailoverOptions } from '../../src/llm/index.js';
import { createLogger } from '../../src/observability/logger.js';

const message = (agentId: string): InboundMessage => ({
  conversation: { channel: 'telegram', accountId: '1', chatId: '42', chatType: 'dm', messageId: '1' },
  dedupeKey: 'k',
  sender: { id: '42' },
  text: 'hi',
  sentAt: 0,
  addressed: true,
  agentId,
});

// no cool-downs: the chains never read them
const failover: FailoverOptions = {
  cooldownMs: 0,
  cooldowns: {
    coolingOf: () => Promise.reject(new Error('not read without a cool-down')),
    coolDown: () => Promise.reject(new Error('not written without a cool-down')),
  },
};
const chainOf = (model: ChatModel | undefined) => (model instanceof FailoverChatModel ? model.models : model ? [model] : []).map((each) => `${each.provider}:${each.model}`);

describe('the models an agent offers /model', () => {
  it('each chosen model fails over to the agent’s fallbacks, itself left out; an agent without `models` offers none', () => {
    const directory = mkdtempSync(join(tmpdir(), 'model-choices-'));
    writeFileSync(
      join(directory, 'bot.config.yaml'),
      `
agents:
  - id: main
    model: gpt-4o-mini
    models: [gpt-4o, gpt-4.1]
    fallbackModels: ["anthropic:claude-haiku-4-5", gpt-4o]
  - id: plain
`,
    );
    const config = loadConfig({ OPENAI_API_KEY: 'sk', ANTHROPIC_API_KEY: 'sk-ant' }, { cwd: directory });
    const runtimes = new AgentRuntimes(config, new ChatSettingsResolver(config), createLogger({ level: 'silent' }), undefined, [], failover);
    const agent = runtimes.turnAgent(message('main'));
    expect([...agent.modelChoices!.keys()]).toEqual(['openai:gpt-4o-mini', 'openai:gpt-4o', 'openai:gpt-4.1']);
    expect(agent.modelChoices!.get('openai:gpt-4o-mini')).toBe(agent.model);
    expect(chainOf(agent.model)).toEqual(['openai:gpt-4o-mini', 'anthropic:claude-haiku-4-5', 'openai:gpt-4o']);
    expect(chainOf(agent.modelChoices!.get('openai:gpt-4o'))).toEqual(['openai:gpt-4o', 'anthropic:claude-haiku-4-5']);
    expect(chainOf(agent.modelChoices!.get('openai:gpt-4.1'))).toEqual(['openai:gpt-4.1', 'anthropic:claude-haiku-4-5', 'openai:gpt-4o']);
    expect(runtimes.turnAgent(message('plain')).modelChoices).toBeUndefined();
  });
});
