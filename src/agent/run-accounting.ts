import { addUsage } from '../core/usage.js';
import type { ApprovalDecision } from '../core/approval.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { PromptSplit } from '../core/trace-span.js';
import type { ChatModel, ModelName, Usage } from '../llm/chat-model.js';
import type { RunOutcome, TraceSpan } from './agent-events.js';
import type { PriceTable } from './pricing.js';
import type { ToolCallOutcome } from './tool-calls.js';
import type { LlmSpan, ToolSpan, TurnProgress } from './turn-steps.js';

export const VERBOSE_INPUT_LIMIT = 50_000;
export const OUTPUT_PREVIEW_LIMIT = 500;

export { addUsage } from '../core/usage.js';

export interface LlmCallRecord {
  iteration: number;
  startedAt: number;
  usage: Usage | undefined;
  error: string | undefined;
  request: { system: string; messages: ChatMessage[] };
  /** The concrete model that answered or failed (a failover chain's member); default: the run's model. */
  answeredBy?: ModelName | undefined;
  /** Why the model stopped, when it answered. */
  finishReason?: string | undefined;
  /** Where the prompt went (see PromptSplit). */
  promptSplit?: PromptSplit | undefined;
}

/** Usage, cost and spans of one run, and the messages it added. */
export class RunAccounting {
  readonly messages: ChatMessage[] = [];
  readonly spans: TraceSpan[] = [];
  usage: Usage = { inputTokens: 0, outputTokens: 0 };
  costUsd = 0;
  iterations = 0;

  constructor(
    private readonly model: ChatModel,
    private readonly clock: () => number,
    private readonly options: { traceVerbose: boolean; prices: PriceTable | undefined },
    resumed?: TurnProgress,
  ) {
    if (!resumed) return;
    this.messages.push(...resumed.messages);
    this.spans.push(...resumed.spans);
    this.usage = resumed.usage;
    this.costUsd = resumed.costUsd;
    this.iterations = resumed.iterations;
  }

  recordLlmCall(record: LlmCallRecord): LlmSpan {
    // priced and named after the model that really answered: a fallback has its own price
    const { provider, model } = record.answeredBy ?? this.model;
    const costUsd = record.usage && this.options.prices ? this.options.prices(model, record.usage) : undefined;
    if (record.usage) this.usage = addUsage(this.usage, record.usage);
    if (costUsd !== undefined) this.costUsd += costUsd;
    const span: LlmSpan = {
      kind: 'llm',
      name: `${provider}:${model}`,
      provider,
      model,
      iteration: record.iteration,
      startedAt: record.startedAt,
      durationMs: this.clock() - record.startedAt,
      usage: record.usage,
      costUsd,
      error: record.error,
      input: this.options.traceVerbose ? JSON.stringify(record.request).slice(0, VERBOSE_INPUT_LIMIT) : undefined,
      ...(record.finishReason !== undefined ? { finishReason: record.finishReason } : {}),
      ...(record.promptSplit !== undefined ? { promptSplit: record.promptSplit } : {}),
    };
    this.spans.push(span);
    return span;
  }

  /**
   * A model call made for the run outside the loop (compaction), or a span of a sub-agent, already measured and
   * priced: counted like the loop's own.
   */
  recordSpan(span: TraceSpan): void {
    const counted = span.kind === 'llm' || span.kind === 'media' ? span : undefined;
    if (counted?.usage) this.usage = addUsage(this.usage, counted.usage);
    if (counted?.costUsd !== undefined) this.costUsd += counted.costUsd;
    this.spans.push(span);
  }

  /** A tool call's span, after the spans of the work it did for the run (a sub-agent's calls: their tokens and cost count here). */
  recordToolCall(outcome: ToolCallOutcome): ToolSpan {
    for (const child of outcome.spans ?? []) this.recordSpan(child);
    const span: ToolSpan = {
      kind: 'tool',
      name: outcome.call.name,
      toolCallId: outcome.call.id,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      isError: outcome.isError,
      error: outcome.isError ? outcome.content.slice(0, OUTPUT_PREVIEW_LIMIT) : undefined,
      outputPreview: outcome.content.slice(0, OUTPUT_PREVIEW_LIMIT),
    };
    this.spans.push(span);
    return span;
  }

  recordApproval(toolCallId: string, name: string, decision: ApprovalDecision, allowed: boolean): void {
    this.spans.push({
      kind: 'approval',
      name,
      toolCallId,
      startedAt: decision.askedAt,
      durationMs: Math.max(0, decision.decidedAt - decision.askedAt),
      isError: !allowed,
      error: allowed ? undefined : decision.summary,
      outputPreview: decision.summary,
    });
  }

  outcome(): RunOutcome {
    return { messages: [...this.messages], usage: this.usage, costUsd: this.costUsd, iterations: this.iterations, spans: [...this.spans] };
  }
}
