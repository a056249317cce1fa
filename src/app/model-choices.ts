import type { ModelChoice, ModelChoices } from '../commands/index.js';
import type { AgentConfig, AppConfig, LlmConfig } from '../config/app-config.js';
import { chatKeyOfSessionKey } from '../core/session-key.js';
import { priceOf } from '../llm/index.js';
import type { SessionQueue } from '../redis/index.js';
import { chatModelOf, chooseChatModel, chooseSessionModel, sessionKeysOfChat, sessionModelOf, type StoreDatabase } from '../store/index.js';
import { sessionInfoOf } from '../turn/session-info.js';

/**
 * `/model` in the gateway: the session's agent's models from the config, the choice kept in PostgreSQL (it outlives
 * every restart): in the session's row, or (an agent with `modelChoice: chat`) in the chat's. Turns read it with the
 * session's history, so a choice moves the history version on: of the session, or of every session of the chat (its
 * stored ones and those the queue knows, a topic whose first turn is running among them). The next turn of each
 * reads the session again, and with it the choice.
 */
export function createModelChoices(config: AppConfig, db: StoreDatabase, sessions: Pick<SessionQueue, 'historyChanged' | 'threadSessionsOf'>): ModelChoices {
  const byAgent = new Map(config.agents.map((agent) => [agent.id, { choices: choicesOf(agent, config), scope: agent.modelChoice }]));
  const defaultAgent = byAgent.get(config.agents[0]!.id)!;
  const agentOf = (sessionKey: string) => byAgent.get(sessionKey.split(':')[1] ?? '') ?? defaultAgent;
  return {
    choices: (sessionKey) => agentOf(sessionKey).choices,
    scope: (sessionKey) => agentOf(sessionKey).scope,
    chosen: (sessionKey) => (agentOf(sessionKey).scope === 'chat' ? chatModelOf(db, chatKeyOfSessionKey(sessionKey)) : sessionModelOf(db, sessionKey)),
    async choose(sessionKey, message, choice) {
      const session = sessionInfoOf(sessionKey, message);
      if (agentOf(sessionKey).scope === 'session') {
        await chooseSessionModel(db, session, choice ?? null);
        await sessions.historyChanged(sessionKey);
        return;
      }
      const chatKey = chatKeyOfSessionKey(sessionKey);
      await chooseChatModel(db, chatKey, choice ?? null);
      const [stored, queued] = await Promise.all([sessionKeysOfChat(db, session), sessions.threadSessionsOf(chatKey)]);
      const keys = new Set([sessionKey, chatKey, ...stored, ...queued]);
      await Promise.all([...keys].map((key) => sessions.historyChanged(key)));
    },
  };
}

function choicesOf(agent: AgentConfig, config: AppConfig): ModelChoice[] {
  return [agent.llm, ...agent.models].map((llm: LlmConfig) => ({
    key: `${llm.provider}:${llm.model}`,
    provider: llm.provider,
    name: llm.model,
    contextWindow: llm.contextWindow,
    price: priceOf(llm.model, config.llmPrices),
  }));
}
