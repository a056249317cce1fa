import { createSpawnAgentTool, type AgentTool, type SubagentSetup } from '../agent/index.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { priceTableOf } from '../llm/pricing.js';
import { createContextController } from './context-controller.js';
import type { TurnDependencies } from './turn-dependencies.js';

/**
 * The turn's `spawn_agent` (CONTRACT §18), when its agent has sub-agents on and the depth allows one: each child's
 * model is charged to the budgets of the turn's user, chat and agent, like the turn's own calls, and its requests
 * are fitted to its model's window (no compaction: a child has no stored history).
 */
export function spawnToolFor(deps: TurnDependencies, latest: InboundMessage, runId: string, clock: () => number): AgentTool | undefined {
  const support = deps.subagents;
  if (!support || deps.settings.subagents === false || support.maxDepth < 1) return undefined;
  return createSpawnAgentTool({
    depth: 0,
    maxDepth: support.maxDepth,
    maxParallel: support.maxParallel,
    agentNames: support.agentNames,
    agentFor: async (name) => {
      const setup = await support.agentFor(name, latest.agentId);
      if (!setup) return undefined;
      return chargedSetup(deps, setup, latest);
    },
    runId,
    clock,
    prices: priceTableOf(deps.settings.llmPrices),
    traceVerbose: deps.settings.traceVerbose,
    contextFor: (model) =>
      createContextController({
        model,
        calibration: deps.calibration,
        historyTurns: deps.settings.historyTurns,
        sessionKey: `${runId}/subagent`,
        prior: [],
        priorLength: 0,
        compactor: undefined,
        loadPrior: async () => [],
        logger: deps.logger,
      }),
  });
}

async function chargedSetup(deps: TurnDependencies, setup: SubagentSetup, latest: InboundMessage): Promise<SubagentSetup> {
  if (!deps.budgets) return setup;
  return { ...setup, model: await deps.budgets.guard(setup.model, latest) };
}
