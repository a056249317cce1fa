import type { OpenedSession, TurnDependencies } from './turn-dependencies.js';

/**
 * The turn's model: the one `/model` chose (read with the session, see OpenedSession) for the session, or for its
 * whole chat when the agent's `modelChoice` is `chat` (then only the chat's choice counts), while the agent still
 * allows it; otherwise the agent's own. Budgets wrap it afterwards, so they price the chosen model.
 */
export function withChosenModel(deps: TurnDependencies, session: Pick<OpenedSession, 'model' | 'chatModel'>): TurnDependencies {
  const choice = deps.modelChoice === 'chat' ? session.chatModel : session.model;
  if (choice === undefined) return deps;
  const model = deps.modelChoices?.get(choice);
  if (model) return { ...deps, model };
  deps.logger.warn({ chosen: choice, model: `${deps.model.provider}:${deps.model.model}` }, "the chosen model is no longer allowed: answering with the agent's model");
  return deps;
}
