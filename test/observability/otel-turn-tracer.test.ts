import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TraceSpan } from '../../src/core/trace-span.js';
import { moduleLogger } from '../../src/observability/logger.js';
import { createOtelTurnTracer } from '../../src/observability/otel-turn-tracer.js';
import { telemetrySettingsOf } from '../../src/observability/telemetry-settings.js';
import { turnSpanIds } from '../../src/observability/turn-span-ids.js';
import { currentTurnTrace, installTurnTracer, traceTurn, type TurnAttempt } from '../../src/observability/turn-tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../doubles/otlp-receiver.js';

/** The tracer in-process against the OTLP receiver double; the exporters read their endpoint from the environment. */
let receiver: OtlpReceiver;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
});

afterEach(() => installTurnTracer(undefined));

afterAll(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  await receiver.close();
});

const tracerWith = (env: Record<string, string> = {}) =>
  createOtelTurnTracer(telemetrySettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...env }), moduleLogger('test'));

const attempt = (turnId: string, number: number, extra: Partial<TurnAttempt> = {}): TurnAttempt => ({
  turnId,
  sessionKey: 'agent:main:telegram:1:dm:5',
  attempt: number,
  resumed: number > 1,
  workerId: `worker-${number}`,
  agentId: 'main',
  firstSentAt: Date.now() - 50,
  inputText: 'SECRET-INPUT',
  ...extra,
});

const now = Date.now();
const RECORDED: TraceSpan[] = [
  { kind: 'llm', name: 'openai:gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini', iteration: 1, startedAt: now, durationMs: 5, usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 30 }, costUsd: 0.001, error: undefined, input: undefined, finishReason: 'tool-use' },
  { kind: 'tool', name: 'read_file', toolCallId: 'call-1', startedAt: now + 6, durationMs: 3, isError: false, error: undefined, outputPreview: 'SECRET-RESULT' },
];
const MESSAGES = [{ role: 'assistant' as const, parts: [{ type: 'tool-call' as const, id: 'call-1', name: 'read_file', arguments: '{"path":"SECRET-PATH"}' }] }];

/** Runs one attempt that, when `store`, finishes the turn with the recorded spans. */
function runAttempt(turn: TurnAttempt, store: boolean) {
  return traceTurn(
    () => turn,
    async () => {
      const trace = currentTurnTrace()!;
      await trace.span('chat send', { 'chatbot.channel': 'telegram' }, async () => undefined);
      if (store) trace.finish({ status: 'completed', spans: RECORDED, messages: MESSAGES, reply: 'SECRET-REPLY' });
      return store ? 'completed' : 'retry';
    },
    (outcome) => outcome,
  );
}

describe('the OpenTelemetry turn tracer', () => {
  it('puts every attempt of a turn in one trace whose ids come from the turn id; the root is exported once, by the attempt that stores the turn', async () => {
    const tracer = tracerWith();
    installTurnTracer(tracer);
    const turnId = 'turn-ids-1';
    await runAttempt(attempt(turnId, 1), false);
    await runAttempt(attempt(turnId, 2), true);
    await tracer.shutdown();
    const ids = turnSpanIds(turnId);
    const spans = receiver.spans.filter((span) => span.traceId === ids.traceId);
    expect(spans.filter((span) => span.spanId === ids.spanId).map((span) => span.name)).toEqual(['invoke_agent main']);
    expect(spans.filter((span) => span.name === 'turn attempt').map((span) => [span.attributes['chatbot.turn.attempt'], span.attributes['chatbot.turn.outcome'], span.parentSpanId])).toEqual([
      [1, 'retry', ids.spanId],
      [2, 'completed', ids.spanId],
    ]);
    const llm = spans.find((span) => span.name === 'chat gpt-4o-mini')!;
    // the provider's whole input: fresh plus cached
    expect(llm.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.cache_read.input_tokens': 30, 'gen_ai.response.finish_reasons': ['tool-use'] });
    expect(spans.find((span) => span.name === 'execute_tool read_file')!.attributes).toMatchObject({ 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': 'call-1' });
    for (const text of ['SECRET-INPUT', 'SECRET-RESULT', 'SECRET-PATH', 'SECRET-REPLY']) expect(receiver.bodies.join('')).not.toContain(text);
  });

  it('records the text with OTEL_GENAI_CAPTURE_CONTENT=true', async () => {
    const tracer = tracerWith({ OTEL_GENAI_CAPTURE_CONTENT: 'true' });
    installTurnTracer(tracer);
    await runAttempt(attempt('turn-content-1', 1), true);
    await tracer.shutdown();
    const spans = receiver.spans.filter((span) => span.traceId === turnSpanIds('turn-content-1').traceId);
    expect(spans.find((span) => span.name === 'execute_tool read_file')!.attributes).toMatchObject({ 'gen_ai.tool.call.arguments': '{"path":"SECRET-PATH"}', 'gen_ai.tool.call.result': 'SECRET-RESULT' });
    expect(String(spans.find((span) => span.name === 'invoke_agent main')!.attributes['gen_ai.input.messages'])).toContain('SECRET-INPUT');
  });

  it('exports nothing of a turn the sampler leaves out', async () => {
    const tracer = tracerWith({ OTEL_TRACES_SAMPLER: 'always_off' });
    installTurnTracer(tracer);
    await runAttempt(attempt('turn-sampled-out', 1), true);
    await tracer.shutdown();
    expect(receiver.spans.filter((span) => span.traceId === turnSpanIds('turn-sampled-out').traceId)).toEqual([]);
  });

  it('sends OTLP protobuf by default', async () => {
    const before = receiver.requests.length;
    const tracer = createOtelTurnTracer(telemetrySettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), moduleLogger('test'));
    installTurnTracer(tracer);
    await runAttempt(attempt('turn-protobuf', 1), true);
    await tracer.shutdown();
    expect(receiver.requests.slice(before)).toEqual(['/v1/traces application/x-protobuf']);
  });

  it('runs the turn as it is when tracing is off: no trace is current', async () => {
    installTurnTracer(undefined);
    let seen: unknown = 'unset';
    const result = await traceTurn(() => { throw new Error('not asked for when off'); }, async () => ((seen = currentTurnTrace()), 'done'), (value) => value);
    expect(result).toBe('done');
    expect(seen).toBeUndefined();
  });
});
