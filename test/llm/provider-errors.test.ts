import * as Anthropic from '@anthropic-ai/sdk';
import * as OpenAi from 'openai';
import { describe, expect, it } from 'vitest';
import { BotError } from '../../src/core/errors.js';
import { retryAfterMsOf, toBotError } from '../../src/llm/provider-errors.js';

const openAiError = (status: number, error: object, headers: Record<string, string> = {}) =>
  OpenAi.APIError.generate(status, { error }, undefined, new Headers(headers));
const anthropicError = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers(headers));

const openai = { provider: 'openai' as const, sdk: OpenAi };
const anthropic = { provider: 'anthropic' as const, sdk: Anthropic };

describe('toBotError', () => {
  it('maps 429 to a retryable rate-limit with the wait from the headers', () => {
    const error = toBotError(openAiError(429, { message: 'slow down', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '1500' }), openai);
    expect(error).toMatchObject({ code: 'rate-limit', isRetryable: true, retryAfterMs: 1500 });
    expect(toBotError(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '3' }), anthropic)).toMatchObject({
      code: 'rate-limit',
      retryAfterMs: 3000,
    });
  });

  it('treats an exhausted OpenAI quota as an account problem, not a wait', () => {
    expect(toBotError(openAiError(429, { message: 'You exceeded your current quota', code: 'insufficient_quota' }), openai)).toMatchObject({
      code: 'auth',
      isRetryable: false,
    });
  });

  it('maps 529 and overloaded_error to a retryable overloaded', () => {
    expect(toBotError(anthropicError(529, 'overloaded_error', 'Overloaded'), anthropic)).toMatchObject({ code: 'overloaded', isRetryable: true });
    const midStream = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, undefined, 'overloaded_error');
    expect(toBotError(midStream, anthropic)).toMatchObject({ code: 'overloaded', isRetryable: true });
  });

  it('recognises both providers’ context-length errors', () => {
    const cases = [
      toBotError(openAiError(400, { message: "This model's maximum context length is 128000 tokens.", code: 'context_length_exceeded' }), openai),
      toBotError(anthropicError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'), anthropic),
      toBotError(
        anthropicError(400, 'invalid_request_error', 'input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000'),
        anthropic,
      ),
    ];
    for (const error of cases) expect(error).toMatchObject({ code: 'context-length', isRetryable: false });
  });

  it('maps 401/403 to auth, other 4xx to bad-request, 408 to timeout and 5xx to server', () => {
    expect(toBotError(openAiError(401, { message: 'bad key' }), openai)).toMatchObject({ code: 'auth', isRetryable: false });
    expect(toBotError(anthropicError(403, 'permission_error', 'no'), anthropic)).toMatchObject({ code: 'auth' });
    expect(toBotError(openAiError(404, { message: 'no such model' }), openai)).toMatchObject({ code: 'bad-request', isRetryable: false });
    expect(toBotError(anthropicError(400, 'invalid_request_error', 'bad'), anthropic).message).toBe('anthropic 400 invalid_request_error: bad');
    expect(toBotError(openAiError(408, { message: 'slow' }), openai)).toMatchObject({ code: 'timeout', isRetryable: true });
    expect(toBotError(openAiError(503, { message: 'down' }), openai)).toMatchObject({ code: 'server', isRetryable: true });
    expect(toBotError(anthropicError(500, 'api_error', 'oops'), anthropic)).toMatchObject({ code: 'server', isRetryable: true });
  });

  it('maps connection failures, timeouts and aborts', () => {
    expect(toBotError(new OpenAi.APIConnectionError({ message: 'Connection error.' }), openai)).toMatchObject({ code: 'network', isRetryable: true });
    expect(toBotError(new Anthropic.APIConnectionTimeoutError(), anthropic)).toMatchObject({ code: 'timeout', isRetryable: true });
    expect(toBotError(new OpenAi.APIUserAbortError(), openai)).toMatchObject({ code: 'aborted', isRetryable: false });
    expect(toBotError(new TypeError('terminated'), anthropic)).toMatchObject({ code: 'network', isRetryable: true });
  });

  it('calls anything the caller aborted "aborted", whatever the SDK threw', () => {
    const controller = new AbortController();
    controller.abort();
    expect(toBotError(new TypeError('terminated'), { ...openai, signal: controller.signal })).toMatchObject({ code: 'aborted' });
  });

  it('passes a BotError through and calls the unknown internal', () => {
    const original = new BotError('timeout', 'already mapped', { isRetryable: true });
    expect(toBotError(original, openai)).toBe(original);
    expect(toBotError(new Error('surprise'), openai)).toMatchObject({ code: 'internal', isRetryable: false });
  });
});

describe('retryAfterMsOf', () => {
  it('prefers retry-after-ms, then retry-after in seconds or as a date', () => {
    expect(retryAfterMsOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMsOf(new Headers({ 'retry-after': '2.5' }))).toBe(2500);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMsOf(new Headers({ 'retry-after': inTenSeconds }))).toBeGreaterThan(8_000);
    expect(retryAfterMsOf(new Headers())).toBeUndefined();
    expect(retryAfterMsOf(undefined)).toBeUndefined();
  });
});
