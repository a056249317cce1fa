import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceSpan } from '../core/trace-span.js';
import type { ChatMessage } from '../core/chat-message.js';

/**
 * The turn's trace as the turn layer sees it, with no OpenTelemetry type in sight: the SDK is loaded only when
 * OTLP export is on (see telemetry.ts), and with it off nothing here does any work per message (`traceTurn` runs the
 * turn as it is, `currentTurnTrace` answers undefined without a lookup).
 */
export interface TurnTrace {
  /** A span of this attempt's own work, live (a platform send, the flush), around `work`. */
  span<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T>;
  /**
   * The turn is stored: its recorded spans (model calls, tool calls, approvals, sub-agents, media; this attempt's and
   * the saved ones of earlier attempts) join the trace, and the turn's root span ends with `status`.
   */
  finish(record: { status: string; spans: TraceSpan[]; messages: ReadonlyArray<ChatMessage>; reply?: string }): void;
}

/** What the queue worker knows of the attempt it starts. */
export interface TurnAttempt {
  turnId: string;
  sessionKey: string;
  attempt: number;
  resumed: boolean;
  workerId: string;
  agentId: string;
  /** When the turn's first message was sent (the platform's clock): the trace starts there. */
  firstSentAt: number;
  /** A scheduled task's firing: its task id (the firing starts a trace of its own like any turn). */
  taskId?: string | undefined;
  /** The messages' own text, recorded only with OTEL_GENAI_CAPTURE_CONTENT=true. */
  inputText: string;
}

export interface TurnTracer {
  /** Runs one attempt of a turn inside its trace; `outcomeOf` names how the attempt ended (the attempt span's status). */
  attempt<T>(turn: TurnAttempt, work: () => Promise<T>, outcomeOf: (result: T) => string): Promise<T>;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

const current = new AsyncLocalStorage<TurnTrace>();
let tracer: TurnTracer | undefined;

/** Installed once at start when OTLP export is on (see startTelemetry). */
export function installTurnTracer(installed: TurnTracer | undefined): void {
  tracer = installed;
}

/** The running turn's trace; undefined when tracing is off (the common case costs one comparison). */
export function currentTurnTrace(): TurnTrace | undefined {
  return tracer === undefined ? undefined : current.getStore();
}

/** Makes `trace` the current turn's trace while `work` runs (for the OpenTelemetry side, see otel-turn-tracer.ts). */
export function withTurnTrace<T>(trace: TurnTrace, work: () => Promise<T>): Promise<T> {
  return current.run(trace, work);
}

/** One attempt of a turn: traced when OTLP export is on, run as it is otherwise. */
export function traceTurn<T>(turn: () => TurnAttempt, work: () => Promise<T>, outcomeOf: (result: T) => string): Promise<T> {
  return tracer === undefined ? work() : tracer.attempt(turn(), work, outcomeOf);
}
