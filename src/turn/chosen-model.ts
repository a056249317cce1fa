import type { TurnDependencies } from './turn-dependencies.js';

/**
 * The turn's model: the one `/model` chose for the session (read with the session, see OpenedSession.model), when
 * the agent still allows it; otherwise the agent's own. Budgets wrap it afterwards, so they price the chosen model.
 */
export function withChosenModel(deps: TurnDependencies, choice: string | undefined): TurnDependencies {
  if (choice === undefined) return deps;
  const model = deps.modelChoices?.get(choice);
  if (model) return { ...deps, model };
  deps.logger.warn({ chosen: choice, model: `${deps.model.provider}:${deps.model.model}` }, "the session's chosen model is no longer allowed: answering with the agent's model");
  return deps;
}
