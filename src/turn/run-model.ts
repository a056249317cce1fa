import { runAgent, type AgentEvent } from '../agent/index.js';
import type { ChatMessage } from '../core/chat-message.js';
import { BotError } from '../core/errors.js';
import type { InboundMessage } from '../core/inbound-message.js';
import { costOf, priceOf } from '../llm/pricing.js';
import { prepareModelInput } from './model-input.js';
import type { TurnDependencies } from './turn-dependencies.js';

export type TerminalEvent = Extract<AgentEvent, { type: 'run-end' | 'run-error' | 'run-cancel' }>;

export interface ModelTurnInput {
  turnId: string;
  sessionKey: string;
  sessionId: string;
  latest: InboundMessage;
  userMessages: ChatMessage[];
  signal: AbortSignal;
  clock: () => number;
  /** Every event of the loop as it happens (live replies listen for text deltas). */
  onEvent?: (event: AgentEvent) => void;
}

const prices = (model: string, usage: Parameters<typeof costOf>[1]) => (priceOf(model) ? costOf(model, usage) : undefined);

/**
 * Runs the agent loop on the assembled input. A provider "context too long" error compacts the session
 * (under its lock) and tries once more with the shorter history.
 */
export async function runModelTurn(deps: TurnDependencies, input: ModelTurnInput): Promise<{ terminal: TerminalEvent; summarizeDue: boolean }> {
  const earlierSpans: TerminalEvent['spans'] = [];
  for (let attempt = 0; ; attempt++) {
    const prepared = await prepareModelInput(deps, input);
    let terminal: TerminalEvent | undefined;
    for await (const event of runAgent({
      runId: input.turnId,
      system: prepared.system,
      messages: prepared.messages,
      tools: deps.tools,
      model: deps.model,
      maxIterations: deps.settings.maxIterations,
      signal: input.signal,
      toolContext: { signal: input.signal, workspace: prepared.workspace, sessionKey: input.sessionKey, userId: input.latest.sender.id },
      clock: input.clock,
      traceVerbose: deps.settings.traceVerbose,
      prices,
    })) {
      input.onEvent?.(event);
      if (event.type === 'run-end' || event.type === 'run-error' || event.type === 'run-cancel') terminal = event;
    }
    if (!terminal) throw new BotError('internal', 'agent run ended without a terminal event');
    const contextTooLong = terminal.type === 'run-error' && terminal.error instanceof BotError && terminal.error.code === 'context-length';
    if (contextTooLong && attempt === 0 && deps.compactor) {
      deps.logger.warn({ sessionKey: input.sessionKey, runId: input.turnId }, 'context too long: compacting and retrying once');
      earlierSpans.push(...terminal.spans);
      const compacted = await deps.compactor.compact(input.sessionKey, { force: true, signal: input.signal });
      if (compacted === 'summarized') continue;
    }
    terminal.spans = [...earlierSpans, ...terminal.spans];
    return { terminal, summarizeDue: prepared.summarizeDue };
  }
}
