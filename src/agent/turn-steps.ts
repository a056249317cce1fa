import { toolCallsOf, type ChatMessage } from '../core/chat-message.js';
import type { Usage } from '../llm/chat-model.js';
import type { TraceSpan } from './agent-events.js';
import { addUsage } from '../core/usage.js';

export type LlmSpan = Extract<TraceSpan, { kind: 'llm' }>;
export type ToolSpan = Extract<TraceSpan, { kind: 'tool' }>;

/**
 * One completed step of a run, in the order the run made them. Saved durably as it happens
 * (the checkpoint), so a retry of the turn continues after the last one instead of starting over:
 * a tool whose result is recorded never runs again.
 */
export type TurnStep =
  /** A model answer that called tools (a final answer needs no checkpoint: the delivery record keeps it). */
  | { type: 'model'; message: ChatMessage; span: LlmSpan }
  /** A model call that failed; kept for the run's trace. */
  | { type: 'model-error'; span: LlmSpan }
  /** A model call made for the run outside the loop before a loop call (a mid-turn summary, its memory flush). */
  | { type: 'context-call'; span: LlmSpan }
  /** A tool with side effects is about to run: if no result follows, it was interrupted and is not run again. */
  | { type: 'tool-start'; toolCallId: string }
  /** `spans`: what the tool did for the run (a finished sub-agent's calls), with their tokens and cost. */
  | { type: 'tool-result'; toolCallId: string; name: string; content: string; isError: boolean; span: ToolSpan; spans?: TraceSpan[] }
  /**
   * One span of a tool call's work for the run, saved as it happened (a sub-agent's model or tool call): counted
   * whether or not the call's result follows. A call run again after a takeover adds its own, so every model call
   * charged to the budgets is in the run once.
   */
  | { type: 'subagent-span'; toolCallId: string; span: TraceSpan };

/** What the steps add up to: the run's messages and accounting so far, and the calls still owed a result. */
export interface TurnProgress {
  messages: ChatMessage[];
  spans: TraceSpan[];
  usage: Usage;
  costUsd: number;
  iterations: number;
  /** Calls of the last model step that have no result yet, in call order. */
  pendingCallIds: string[];
  /** Calls that started (side effects possible) without a recorded result. */
  interruptedCallIds: Set<string>;
}

export function emptyProgress(): TurnProgress {
  return { messages: [], spans: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, iterations: 0, pendingCallIds: [], interruptedCallIds: new Set() };
}

/** Replays the saved steps; tool results are put back in call order whatever order they finished in. */
export function replaySteps(steps: TurnStep[]): TurnProgress {
  const progress = emptyProgress();
  let results = new Map<string, ChatMessage>();
  let calls: string[] = [];
  const started = new Set<string>();
  const flushResults = () => {
    for (const id of calls) {
      const result = results.get(id);
      if (result) progress.messages.push(result);
    }
  };
  for (const step of steps) {
    switch (step.type) {
      case 'model':
        flushResults();
        progress.messages.push(step.message);
        calls = toolCallsOf(step.message).map((call) => call.id);
        results = new Map();
        progress.iterations++;
        addSpan(progress, step.span);
        break;
      case 'model-error':
      case 'context-call':
      case 'subagent-span':
        addSpan(progress, step.span);
        break;
      case 'tool-start':
        started.add(step.toolCallId);
        break;
      case 'tool-result':
        if (!calls.includes(step.toolCallId) || results.has(step.toolCallId)) break;
        results.set(step.toolCallId, {
          role: 'tool',
          parts: [{ type: 'tool-result', toolCallId: step.toolCallId, name: step.name, content: step.content, isError: step.isError }],
        });
        for (const child of step.spans ?? []) addSpan(progress, child);
        progress.spans.push(step.span);
        break;
    }
  }
  flushResults();
  progress.pendingCallIds = calls.filter((id) => !results.has(id));
  progress.interruptedCallIds = new Set(progress.pendingCallIds.filter((id) => started.has(id)));
  return progress;
}

function addSpan(progress: TurnProgress, span: TraceSpan): void {
  progress.spans.push(span);
  if (span.kind !== 'llm' && span.kind !== 'media') return;
  if (span.usage) progress.usage = addUsage(progress.usage, span.usage);
  progress.costUsd += span.costUsd ?? 0;
}
