import { Readable } from 'node:stream';
import type { Client } from '@larksuiteoapi/node-sdk';
import type { PlatformCallRecorder } from '../../src/core/index.js';
import { FeishuApiError } from './errors.js';

export type HttpInstance = NonNullable<ConstructorParameters<typeof Client>[0]['httpInstance']>;
type RequestOptions = Parameters<HttpInstance['request']>[0];

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
const FILE_TIMEOUT_MS = 120_000;

/**
 * The HTTP transport the SDK's Client and WSClient call, on `fetch` instead of the SDK's shared axios
 * instance: every request gets a timeout (axios has none by default), and a failure becomes a
 * FeishuApiError carrying status, Feishu code and rate-limit reset, without the request config
 * (axios errors keep the `Authorization` header, which must never reach a log line).
 * Like the SDK's default instance it resolves with the parsed body; multipart uploads (images, files) go
 * as FormData, and a `responseType: 'stream'` download resolves with a Node stream, as axios would.
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
    const headers = stringHeaders(config.headers);
    const multipart = hasBody && Object.entries(headers).some(([key, value]) => key.toLowerCase() === 'content-type' && value.includes('multipart/form-data'));
    // the message resource download answers a binary stream; it gets longer than an API call
    const streamed = config.responseType === 'stream';
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: multipart ? withoutContentType(headers) : { ...(hasBody ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers },
        ...(hasBody ? { body: multipart ? formDataOf(config.data) : JSON.stringify(config.data) } : {}),
        signal: AbortSignal.timeout(config.timeout || (streamed ? FILE_TIMEOUT_MS : defaultTimeoutMs)),
      });
      if (streamed && response.ok && response.body) {
        record(label, 'ok');
        return { data: Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), headers: Object.fromEntries(response.headers) };
      }
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

function withoutContentType(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== 'content-type'));
}

/** The SDK's upload payload (`{ image_type, image }`, `{ file_type, file_name, file }`) as multipart fields. */
function formDataOf(data: unknown): FormData {
  const form = new FormData();
  const fields = (data ?? {}) as Record<string, unknown>;
  const fileName = typeof fields.file_name === 'string' ? fields.file_name : 'file';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) form.append(key, new Blob([new Uint8Array(value)]), key === 'image' ? 'image' : fileName);
    else form.append(key, String(value));
  }
  return form;
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
