import type { ModelChoice, ModelChoices } from '../commands/index.js';
import type { AgentConfig, AppConfig, LlmConfig } from '../config/app-config.js';
import { priceOf } from '../llm/index.js';
import type { SessionQueue } from '../redis/index.js';
import { chooseSessionModel, sessionModelOf, type StoreDatabase } from '../store/index.js';
import { sessionInfoOf } from '../turn/session-info.js';

/**
 * `/model` in the gateway: the session's agent's models from the config, the choice kept in the session's row
 * (PostgreSQL: it outlives every restart). Turns read it with the session's history, so a choice moves the history
 * version on: the next turn reads the session again, and with it the choice.
 */
export function createModelChoices(config: AppConfig, db: StoreDatabase, sessions: Pick<SessionQueue, 'historyChanged'>): ModelChoices {
  const byAgent = new Map(config.agents.map((agent) => [agent.id, choicesOf(agent, config)]));
  const defaultChoices = byAgent.get(config.agents[0]!.id)!;
  return {
    choices: (sessionKey) => byAgent.get(sessionKey.split(':')[1] ?? '') ?? defaultChoices,
    chosen: (sessionKey) => sessionModelOf(db, sessionKey),
    async choose(sessionKey, message, choice) {
      await chooseSessionModel(db, sessionInfoOf(sessionKey, message), choice ?? null);
      await sessions.historyChanged(sessionKey);
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
