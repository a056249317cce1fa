import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding), attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string } | undefined;
  serviceName: unknown;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attributesOf = (list: Array<{ key: string; value: AnyValue }> | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

/**
 * An OTLP/HTTP collector for tests: keeps every span posted to `/v1/traces` as OTLP/JSON, the raw bodies (to look
 * for text that must not be there), and the content types of every request (protobuf ones are counted, not decoded).
 */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  bodies: string[];
  /** `path content-type` of each request received. */
  requests: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = String(request.headers['content-type'] ?? '');
      requests.push(`${request.url} ${type}`);
      if (request.url === '/v1/traces' && type.startsWith('application/json')) {
        const body = Buffer.concat(chunks).toString('utf8');
        bodies.push(body);
        for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
          const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
                endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
                attributes: attributesOf(span.attributes),
                status: span.status,
                serviceName,
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': type.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
      response.end(type.startsWith('application/json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
