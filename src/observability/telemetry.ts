import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { TelemetrySettings } from './telemetry-settings.js';
import { installTurnTracer } from './turn-tracing.js';

export interface RunningTelemetry {
  /** Sends what is still buffered, then stops exporting. */
  stop(): Promise<void>;
}

/**
 * Starts OpenTelemetry export when the operator asked for it (an OTLP endpoint set). Off, no part of the SDK is
 * loaded: it is imported here, on demand, and the bundle keeps it in chunks of its own (scripts/bundle.mjs).
 */
export async function startTelemetry(settings: TelemetrySettings, metrics: Metrics, logger: Logger): Promise<RunningTelemetry | undefined> {
  if (!settings.traces && !settings.metrics) return undefined;
  const stops: Array<() => Promise<void>> = [];
  if (settings.traces) {
    const { createOtelTurnTracer } = await import('./otel-turn-tracer.js');
    const tracer = createOtelTurnTracer(settings, logger);
    installTurnTracer(tracer);
    stops.push(async () => {
      installTurnTracer(undefined);
      await tracer.shutdown();
    });
  }
  if (settings.metrics) {
    const { startOtlpMetrics } = await import('./otlp-metrics.js');
    stops.push(startOtlpMetrics(settings, metrics.registry, logger));
  }
  return {
    async stop() {
      for (const stop of stops) await stop().catch((error: unknown) => logger.warn({ err: error }, 'could not flush the telemetry export'));
    },
  };
}
