import { BotError, type ErrorCode } from '../core/errors.js';
import { wrapEachModel, type ChatModel, type ChatRequest, type ModelName, type ModelStreamEvent } from './chat-model.js';
import type { FailoverCooldowns } from './failover-cooldowns.js';

/** Failures another model may not share: the provider's side broke or is busy (after the SDK's own retries). */
const FAILOVER_CODES: ReadonlySet<ErrorCode> = new Set(['rate-limit', 'overloaded', 'timeout', 'network', 'server']);

/**
 * Whether a failed call goes to the next model: a retryable failure of the provider (5xx, 529, 429, a timeout, a
 * refused or reset connection, a stream broken mid-answer), never a request another model would refuse too
 * (400, 401/403, context length), a budget refusal or an abort.
 */
export function isFailoverError(error: unknown): boolean {
  return error instanceof BotError && error.isRetryable && FAILOVER_CODES.has(error.code);
}

/** `cooldown`: the model was skipped because it is cooling down; otherwise the failed call's error code. */
export type FailoverReason = ErrorCode | 'cooldown';

export interface Failover {
  from: ModelName;
  to: ModelName;
  reason: FailoverReason;
  error?: unknown;
}

export interface FailoverOptions {
  cooldowns: FailoverCooldowns;
  /** LLM_FAILOVER_COOLDOWN_MS; 0: no cool-down (and no Redis read). */
  cooldownMs: number;
  /** Each failover (metrics, log). */
  onFailover?: (failover: Failover) => void;
  /** Redis could not be read or written: the chain is tried in order, a cool-down is lost. */
  onCooldownError?: (error: unknown) => void;
}

export function modelKey(model: ModelName): string {
  return `${model.provider}:${model.model}`;
}

function nameOf(model: ChatModel): ModelName {
  return { provider: model.provider, model: model.model };
}

/**
 * A primary model and its fallbacks as one ChatModel (CONTRACT §17): a call goes to the first model that is not
 * cooling down; when it fails with a retryable error after its own retries, that model cools down for every process
 * and the same request goes to the next one, after an `attempt-failed` event that voids what the failed attempt
 * streamed. The finish event says which model answered. Its name is the primary's; its context window the smallest
 * of the chain, so that a request the primary takes fits each fallback too.
 */
export class FailoverChatModel implements ChatModel {
  readonly provider: ChatModel['provider'];
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;

  constructor(
    readonly models: readonly ChatModel[],
    private readonly options: FailoverOptions,
  ) {
    const primary = models[0];
    if (!primary) throw new Error('a failover chain needs at least one model');
    this.provider = primary.provider;
    this.model = primary.model;
    this.contextWindow = Math.min(...models.map((model) => model.contextWindow));
    this.maxOutputTokens = primary.maxOutputTokens;
  }

  withEachModel(wrap: (model: ChatModel) => ChatModel): ChatModel {
    return new FailoverChatModel(
      this.models.map((model) => wrapEachModel(model, wrap)),
      this.options,
    );
  }

  async *stream(request: ChatRequest): AsyncIterable<ModelStreamEvent> {
    const order = await this.#order();
    for (const [index, model] of order.entries()) {
      try {
        for await (const event of model.stream(request)) {
          yield event.type === 'finish' ? { ...event, answeredBy: event.answeredBy ?? nameOf(model) } : event;
        }
        return;
      } catch (error) {
        if (request.signal?.aborted || !isFailoverError(error)) throw error;
        await this.#coolDown(model);
        const next = order[index + 1];
        if (!next) throw error;
        this.options.onFailover?.({ from: nameOf(model), to: nameOf(next), reason: (error as BotError).code, error });
        yield { type: 'attempt-failed', failed: nameOf(model), next: nameOf(next), error };
      }
    }
  }

  /** The chain without the models cooling down (one MGET); all cooling: the whole chain, primary first. */
  async #order(): Promise<readonly ChatModel[]> {
    if (this.models.length === 1 || this.options.cooldownMs <= 0) return this.models;
    let cooling: Set<string>;
    try {
      cooling = await this.options.cooldowns.coolingOf(this.models.map((model) => modelKey(model)));
    } catch (error) {
      this.options.onCooldownError?.(error);
      return this.models;
    }
    if (cooling.size === 0) return this.models;
    const ready = this.models.filter((model) => !cooling.has(modelKey(model)));
    const first = ready[0];
    if (!first) return this.models;
    for (const skipped of this.models.slice(0, this.models.indexOf(first))) {
      this.options.onFailover?.({ from: nameOf(skipped), to: nameOf(first), reason: 'cooldown' });
    }
    return ready;
  }

  async #coolDown(model: ChatModel): Promise<void> {
    if (this.models.length === 1 || this.options.cooldownMs <= 0) return;
    await this.options.cooldowns.coolDown(modelKey(model), this.options.cooldownMs).catch((error: unknown) => this.options.onCooldownError?.(error));
  }
}
