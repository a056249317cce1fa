import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { errorMessage } from '../core/errors.js';
import type { Logger } from './logger.js';
import { exportRunSpans } from './run-spans-export.js';
import { samplerFromEnvironment } from './sampler-from-environment.js';
import type { TelemetrySettings } from './telemetry-settings.js';
import { TurnIdGenerator, turnSpanIds } from './turn-span-ids.js';
import { withTurnTrace, type TurnAttempt, type TurnTrace, type TurnTracer } from './turn-tracing.js';

const TRACER_NAME = 'chatbot-service';

/**
 * One trace per turn over OTLP/HTTP (loaded only when export is on: its own chunk of the bundle). The turn's root span
 * has ids derived from the turn id and starts when its first message was sent; each attempt (a worker running the
 * turn: the first, a retry, a takeover, the resumption after an approval) is a span under it, with the queue wait
 * before the first, the platform sends and the flush inside. When the turn is stored, the spans it recorded (model
 * and tool calls, approvals, sub-agents, saved by earlier attempts too) join the trace, and the root span ends.
 */
export function createOtelTurnTracer(settings: TelemetrySettings, logger: Logger): TurnTracer {
  const exporter = settings.protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const ids = new TurnIdGenerator();
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerFromEnvironment(settings.sampler, settings.samplerRatio),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.batchDelayMs })],
  });
  const tracer = provider.getTracer(TRACER_NAME);
  logger.info({ protocol: settings.protocol, serviceName: settings.serviceName, sampler: settings.sampler, captureContent: settings.captureContent }, 'OpenTelemetry traces export over OTLP');

  return {
    async attempt<T>(turn: TurnAttempt, work: () => Promise<T>, outcomeOf: (result: T) => string): Promise<T> {
      const now = Date.now();
      const startedAt = Math.min(turn.firstSentAt, now);
      const turnAttributes: Attributes = {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': turn.agentId,
        'gen_ai.conversation.id': turn.sessionKey,
        'chatbot.turn.id': turn.turnId,
        ...(turn.taskId !== undefined ? { 'chatbot.schedule.task_id': turn.taskId } : {}),
      };
      // the same ids in every attempt; only the attempt that stores the turn ends (and so exports) it
      ids.next(turnSpanIds(turn.turnId));
      const root = tracer.startSpan(`invoke_agent ${turn.agentId}`, { root: true, kind: SpanKind.CONSUMER, startTime: startedAt, attributes: turnAttributes }, ROOT_CONTEXT);
      const rootContext = trace.setSpan(ROOT_CONTEXT, root);
      if (turn.attempt === 1 && !turn.resumed) tracer.startSpan('queue wait', { startTime: startedAt }, rootContext).end(now);
      const attemptSpan = tracer.startSpan(
        'turn attempt',
        { startTime: now, attributes: { 'chatbot.turn.attempt': turn.attempt, 'chatbot.turn.resumed': turn.resumed, 'chatbot.worker.id': turn.workerId } },
        rootContext,
      );
      const attemptContext = trace.setSpan(ROOT_CONTEXT, attemptSpan);
      let stored = false;
      const turnTrace: TurnTrace = {
        async span(name, attributes, inner) {
          const span = tracer.startSpan(name, { attributes }, attemptContext);
          try {
            return await inner();
          } catch (error) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error).slice(0, 300) });
            throw error;
          } finally {
            span.end();
          }
        },
        finish(record) {
          try {
            exportRunSpans(tracer, rootContext, record.spans, record.messages, settings.captureContent);
          } catch (error) {
            logger.warn({ err: error, turnId: turn.turnId }, 'could not add the turn\u2019s spans to its trace');
          }
          root.setAttribute('chatbot.turn.status', record.status);
          if (record.status === 'failed') root.setStatus({ code: SpanStatusCode.ERROR });
          if (settings.captureContent) {
            root.setAttribute('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: turn.inputText }] }]));
            if (record.reply) root.setAttribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: record.reply }] }]));
          }
          stored = true;
        },
      };
      try {
        const result = await withTurnTrace(turnTrace, work);
        attemptSpan.setAttribute('chatbot.turn.outcome', outcomeOf(result));
        return result;
      } catch (error) {
        attemptSpan.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error).slice(0, 300) });
        throw error;
      } finally {
        attemptSpan.end();
        if (stored) root.end();
      }
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
