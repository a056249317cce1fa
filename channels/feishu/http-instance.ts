import type { Client } from '@larksuiteoapi/node-sdk';
import type { PlatformCallRecorder } from '../../src/core/index.js';
import { FeishuApiError } from './errors.js';

export type HttpInstance = NonNullable<ConstructorParameters<typeof Client>[0]['httpInstance']>;
type RequestOptions = Parameters<HttpInstance['request']>[0];

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/**
 * The HTTP transport the SDK's Client and WSClient call, on `fetch` instead of the SDK's shared axios
 * instance: every request gets a timeout (axios has none by default), and a failure becomes a
 * FeishuApiError carrying status, Feishu code and rate-limit reset, without the request config
 * (axios errors keep the `Authorization` header, which must never reach a log line).
 * Like the SDK's default instance it resolves with the parsed body. JSON bodies only: this channel
 * uploads no files.
 */
export function createHttpInstance(options: { timeoutMs?: number; onApiCall?: PlatformCallRecorder } = {}): HttpInstance {
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const record = options.onApiCall ?? (() => {});

  // `any` because the SDK's interface lets every caller pick its own result type
  async function send(config: RequestOptions): Promise<any> {
    const method = (config.method ?? 'GET').toUpperCase();
    const url = withQuery(String(config.url ?? ''), config.params, config.paramsSerializer);
    const label = `${method} ${new URL(url).pathname}`;
    const hasBody = config.data !== undefined && method !== 'GET' && method !== 'HEAD';
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: { ...(hasBody ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...stringHeaders(config.headers) },
        ...(hasBody ? { body: JSON.stringify(config.data) } : {}),
        signal: AbortSignal.timeout(config.timeout || defaultTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      record(label, 'error');
      throw new FeishuApiError(`${label}: ${error instanceof Error ? error.message : String(error)}`, { network: true, cause: error });
    }
    const body = parseJson(text);
    // Feishu also answers rate limits as HTTP 400 with code 99991400
    record(label, response.status === 429 || body?.code === 99991400 ? 'rate_limited' : response.ok && !body?.code ? 'ok' : 'error');
    if (!response.ok) {
      const code = typeof body?.code === 'number' ? body.code : undefined;
      const reset = Number(response.headers.get('x-ogw-ratelimit-reset'));
      throw new FeishuApiError(`${label}: HTTP ${response.status}${typeof body?.msg === 'string' ? ` ${body.msg}` : ''}`, {
        status: response.status,
        ...(code !== undefined ? { code } : {}),
        ...(Number.isFinite(reset) && reset > 0 ? { retryAfterMs: reset * 1000 } : {}),
      });
    }
    return config.$return_headers ? { data: body, headers: Object.fromEntries(response.headers) } : body;
  }

  return {
    request: (config) => send(config),
    get: (url, config) => send({ ...config, url, method: 'GET' }),
    delete: (url, config) => send({ ...config, url, method: 'DELETE' }),
    head: (url, config) => send({ ...config, url, method: 'HEAD' }),
    options: (url, config) => send({ ...config, url, method: 'OPTIONS' }),
    post: (url, data, config) => send({ ...config, url, data, method: 'POST' }),
    put: (url, data, config) => send({ ...config, url, data, method: 'PUT' }),
    patch: (url, data, config) => send({ ...config, url, data, method: 'PATCH' }),
  };
}

function withQuery(url: string, params: Record<string, unknown> | undefined, serializer: RequestOptions['paramsSerializer']): string {
  if (params === undefined || Object.keys(params).length === 0) return url;
  // the SDK hands a qs-based serializer along with each typed call; use it so arrays are encoded as it intends
  const query =
    typeof serializer === 'function'
      ? serializer(params)
      : new URLSearchParams(
          Object.entries(params).flatMap(([key, value]) =>
            value === undefined || value === null ? [] : (Array.isArray(value) ? value : [value]).map((item): [string, string] => [key, String(item)]),
          ),
        ).toString();
  if (query === '') return url;
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([, value]) => value !== undefined && value !== null).map(([key, value]) => [key, String(value)]));
}

function parseJson(text: string): Record<string, any> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, any>) : undefined;
  } catch {
    return undefined;
  }
}
