import { BotError } from '../core/errors.js';
import type { ModelStreamEvent } from './chat-model.js';
import { toBotError, type SdkErrorClasses } from './provider-errors.js';
import { StreamWatchdog } from './stream-watchdog.js';

export type FinishEvent = Extract<ModelStreamEvent, { type: 'finish' }>;

/** Turns one provider's stream chunks into our events and, at the end, the finished message. */
export interface StreamAssembler<Chunk> {
  push(chunk: Chunk): ModelStreamEvent[];
  /** The provider said the message is finished (a stop reason arrived). */
  readonly complete: boolean;
  finish(): FinishEvent;
}

export interface ModelStreamOptions<Chunk> {
  provider: 'openai' | 'anthropic';
  sdk: SdkErrorClasses;
  /** Starts the request; the SDK retries failures before the stream opens. */
  open(signal: AbortSignal): Promise<AsyncIterable<Chunk>>;
  assembler: StreamAssembler<Chunk>;
  signal: AbortSignal | undefined;
  idleTimeoutMs: number;
}

/**
 * The common streaming loop: deltas out as they come, `finish` last, and every way a stream can
 * end badly (caller abort, silence, a cut connection, a missing stop reason) as a `BotError`.
 * The streams end iteration quietly when their signal aborts, so the loop checks why it ended. A stream left
 * before its end (the reader stopped, or it failed) has its request aborted rather than read on.
 */
export async function* readModelStream<Chunk>(options: ModelStreamOptions<Chunk>): AsyncGenerator<ModelStreamEvent> {
  const { provider, assembler, signal } = options;
  if (signal?.aborted) throw new BotError('aborted', `${provider} request aborted`, { cause: signal.reason });
  const watchdog = new StreamWatchdog(signal, options.idleTimeoutMs);
  let readToEnd = false;
  try {
    const stream = await options.open(watchdog.signal);
    watchdog.touch();
    for await (const chunk of stream) {
      watchdog.touch();
      yield* assembler.push(chunk);
    }
    readToEnd = true;
    throwIfInterrupted(provider, signal, watchdog);
    if (!assembler.complete) {
      throw new BotError('network', `${provider} stream ended before the model finished`, { isRetryable: true });
    }
    yield assembler.finish();
  } catch (error) {
    if (!(error instanceof BotError)) throwIfInterrupted(provider, signal, watchdog, error);
    throw toBotError(error, { provider, sdk: options.sdk, signal });
  } finally {
    if (readToEnd) watchdog.dispose();
    else watchdog.abandon();
  }
}

function throwIfInterrupted(provider: string, signal: AbortSignal | undefined, watchdog: StreamWatchdog, cause?: unknown): void {
  if (signal?.aborted) throw new BotError('aborted', `${provider} request aborted`, { cause: cause ?? signal.reason });
  if (watchdog.timedOut) {
    throw new BotError('timeout', `${provider} stream went silent`, { cause: cause ?? watchdog.signal.reason, isRetryable: true });
  }
}
