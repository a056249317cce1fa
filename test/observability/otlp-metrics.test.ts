import { DataPointType } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleLogger } from '../../src/observability/logger.js';
import { PrometheusRegistryProducer, startOtlpMetrics } from '../../src/observability/otlp-metrics.js';
import { telemetrySettingsOf } from '../../src/observability/telemetry-settings.js';
import { startOtlpReceiver, type OtlpReceiver } from '../doubles/otlp-receiver.js';

/** The exporters read their endpoint from the environment, as in the service. */
let receiver: OtlpReceiver;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  await receiver.close();
});

function registryWithOneOfEach(): Registry {
  const registry = new Registry();
  new Counter({ name: 'bot_things_total', help: 'things', labelNames: ['kind'], registers: [registry] }).inc({ kind: 'a' }, 3);
  new Gauge({ name: 'bot_level', help: 'level', registers: [registry] }).set(7);
  const histogram = new Histogram({ name: 'bot_seconds', help: 'seconds', buckets: [0.1, 1], labelNames: ['outcome'], registers: [registry] });
  for (const value of [0.05, 0.5, 0.6, 5]) histogram.observe({ outcome: 'ok' }, value);
  return registry;
}

describe('the /metrics instruments over OTLP', () => {
  it('reads prom-client\u2019s registry as OTLP data: counters as monotonic sums, gauges, histograms with per-bucket counts', async () => {
    const producer = new PrometheusRegistryProducer(registryWithOneOfEach(), resourceFromAttributes({ 'service.name': 'test' }));
    const { resourceMetrics } = await producer.collect();
    const metrics = new Map(resourceMetrics.scopeMetrics[0]!.metrics.map((metric) => [metric.descriptor.name, metric]));
    const counter = metrics.get('bot_things_total')!;
    expect(counter).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: true });
    expect(counter.dataPoints.map((point) => [point.attributes, point.value])).toEqual([[{ kind: 'a' }, 3]]);
    expect(metrics.get('bot_level')!.dataPoints.map((point) => point.value)).toEqual([7]);
    const histogram = metrics.get('bot_seconds')!;
    expect(histogram.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(histogram.dataPoints.map((point) => [point.attributes, point.value])).toEqual([[{ outcome: 'ok' }, { buckets: { boundaries: [0.1, 1], counts: [1, 2, 1] }, sum: 6.15, count: 4 }]]);
  });

  it('pushes them to the OTLP endpoint\u2019s /v1/metrics', async () => {
    const stop = startOtlpMetrics(
      telemetrySettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'otlp' }),
      registryWithOneOfEach(),
      moduleLogger('test'),
    );
    // a shutdown exports what was collected last
    await stop();
    expect(receiver.requests).toContain('/v1/metrics application/x-protobuf');
  });
});
