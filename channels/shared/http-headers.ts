import type { WebhookRequest } from '../../src/core/index.js';

/** A request header by its lower-case name, whatever case the client sent; the first value of a repeated one. */
export function headerOf(request: WebhookRequest, name: string): string | undefined {
  const entry = Object.entries(request.headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}
