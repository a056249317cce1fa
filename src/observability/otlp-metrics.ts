import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';
import type { Logger } from './logger.js';
import type { TelemetrySettings } from './telemetry-settings.js';

/**
 * The metrics of GET /metrics pushed over OTLP as well (`OTEL_METRICS_EXPORTER=otlp`), for an operator who prefers
 * that to scraping: the same instruments, read from prom-client's registry at each export by a MetricProducer (the
 * SDK's extension point for metrics from another library) and sent by the OTLP exporter. Counters become cumulative
 * monotonic sums, gauges gauges, histograms explicit-bucket histograms (prom-client's cumulative buckets taken apart).
 */
export function startOtlpMetrics(settings: TelemetrySettings, registry: Registry, logger: Logger): () => Promise<void> {
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName }));
  const exporter = settings.metricsProtocol === 'http/json' ? new JsonMetricExporter() : new ProtobufMetricExporter();
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: settings.metricIntervalMs,
    metricProducers: [new PrometheusRegistryProducer(registry, resource)],
  });
  const provider = new MeterProvider({ resource, readers: [reader] });
  logger.info({ protocol: settings.metricsProtocol, intervalMs: settings.metricIntervalMs }, 'the /metrics instruments are also pushed over OTLP');
  return () => provider.shutdown();
}

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

export class PrometheusRegistryProducer implements MetricProducer {
  readonly #startTime = hrTime(Date.now());

  constructor(
    private readonly registry: Registry,
    private readonly resource: Resource,
  ) {}

  async collect(): Promise<CollectionResult> {
    const now = hrTime(Date.now());
    const metrics: MetricData[] = [];
    for (const metric of await this.registry.getMetricsAsJSON()) {
      const converted = this.convert(metric as MetricObjectWithValues<MetricValue<string>>, now);
      if (converted) metrics.push(converted);
    }
    return { resourceMetrics: { resource: this.resource, scopeMetrics: [{ scope: { name: 'prom-client' }, metrics }] }, errors: [] };
  }

  private convert(metric: MetricObjectWithValues<MetricValue<string>>, now: HrTime): MetricData | undefined {
    const descriptor = { name: metric.name, description: metric.help, unit: '', valueType: ValueType.DOUBLE };
    const point = (value: MetricValue<string>) => ({ startTime: this.#startTime, endTime: now, attributes: value.labels as Attributes, value: value.value });
    switch (String(metric.type)) {
      case 'counter':
        return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints: metric.values.map(point) };
      case 'gauge':
        return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints: metric.values.map(point) };
      case 'histogram':
        return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.HISTOGRAM, dataPoints: histogramPoints(metric, this.#startTime, now) };
      default:
        // summaries (none of ours) have no OTLP counterpart the SDK can send
        return undefined;
    }
  }
}

type ValueWithName = MetricValue<string> & { metricName?: string };

/** prom-client lists a histogram as `_bucket` (cumulative, by `le`), `_sum` and `_count` values per label set. */
function histogramPoints(metric: MetricObjectWithValues<MetricValue<string>>, startTime: HrTime, endTime: HrTime) {
  const series = new Map<string, { attributes: Attributes; buckets: Array<[number, number]>; sum: number; count: number }>();
  for (const value of metric.values as ValueWithName[]) {
    const { le, ...labels } = value.labels as Record<string, string | number>;
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
    let entry = series.get(key);
    if (!entry) series.set(key, (entry = { attributes: labels, buckets: [], sum: 0, count: 0 }));
    if (value.metricName?.endsWith('_bucket')) entry.buckets.push([le === '+Inf' ? Infinity : Number(le), value.value]);
    else if (value.metricName?.endsWith('_sum')) entry.sum = value.value;
    else if (value.metricName?.endsWith('_count')) entry.count = value.value;
  }
  return [...series.values()].map(({ attributes, buckets, sum, count }) => {
    buckets.sort(([a], [b]) => a - b);
    const boundaries = buckets.filter(([bound]) => Number.isFinite(bound)).map(([bound]) => bound);
    const counts: number[] = [];
    let below = 0;
    for (const [, cumulative] of buckets) {
      counts.push(cumulative - below);
      below = cumulative;
    }
    if (counts.length === boundaries.length) counts.push(count - below);
    return { startTime, endTime, attributes, value: { buckets: { boundaries, counts }, sum, count } };
  });
}
