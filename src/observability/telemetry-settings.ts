/**
 * OpenTelemetry export as the operator configured it with the standard `OTEL_*` variables (CONTRACT §21). Export is
 * off unless an OTLP endpoint is set; the exporters read the endpoint, headers, timeout and compression themselves.
 */
export interface TelemetrySettings {
  /** Traces go out over OTLP/HTTP (an endpoint is set). */
  traces: boolean;
  /** The metrics of /metrics are also pushed over OTLP/HTTP (`OTEL_METRICS_EXPORTER=otlp`). */
  metrics: boolean;
  protocol: 'http/protobuf' | 'http/json';
  metricsProtocol: 'http/protobuf' | 'http/json';
  serviceName: string;
  /** `OTEL_TRACES_SAMPLER` / `_ARG` (the SDK's names: always_on, traceidratio, parentbased_…). */
  sampler: string;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers (0–1, default 1). */
  samplerRatio: number;
  /** Message and tool-argument text on the spans (`OTEL_GENAI_CAPTURE_CONTENT=true`). */
  captureContent: boolean;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long finished spans wait to be sent in a batch. */
  batchDelayMs: number;
  /** `OTEL_METRIC_EXPORT_INTERVAL`. */
  metricIntervalMs: number;
}

export const DEFAULT_SERVICE_NAME = 'chatbot-service';

type Protocol = TelemetrySettings['protocol'];

const protocolOf = (value: string | undefined, fallback: Protocol): Protocol => (value === 'http/json' ? 'http/json' : value === 'http/protobuf' ? 'http/protobuf' : fallback);

export function telemetrySettingsOf(env: Record<string, string | undefined>): TelemetrySettings {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const protocol = protocolOf(env.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/protobuf');
  return {
    traces: (set('OTEL_EXPORTER_OTLP_ENDPOINT') || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) && env.OTEL_TRACES_EXPORTER !== 'none' && env.OTEL_SDK_DISABLED !== 'true',
    metrics: (set('OTEL_EXPORTER_OTLP_ENDPOINT') || set('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT')) && env.OTEL_METRICS_EXPORTER === 'otlp' && env.OTEL_SDK_DISABLED !== 'true',
    protocol: protocolOf(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, protocol),
    metricsProtocol: protocolOf(env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, protocol),
    serviceName: set('OTEL_SERVICE_NAME') ? env.OTEL_SERVICE_NAME!.trim() : DEFAULT_SERVICE_NAME,
    sampler: (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim(),
    samplerRatio: ratioOf(env.OTEL_TRACES_SAMPLER_ARG),
    captureContent: env.OTEL_GENAI_CAPTURE_CONTENT === 'true',
    batchDelayMs: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
    metricIntervalMs: positive(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
  };
}

function positive(value: string | undefined, fallback: number): number {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) && number > 0 ? number : fallback;
}

function ratioOf(value: string | undefined): number {
  const number = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(number) && number >= 0 && number <= 1 ? number : 1;
}
