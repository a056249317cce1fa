import type { ApiClientOptions } from 'grammy';
import { httpFetch } from '../../src/core/http-fetch.js';

/** Every Bot API client of the channel: its root, and fetch over node:http (src/core/http-fetch.ts: node-fetch costs more). */
export function apiClientOptions(apiRoot: string, options: Omit<ApiClientOptions, 'apiRoot' | 'fetch'> = {}): ApiClientOptions {
  return { ...options, apiRoot, fetch: httpFetch };
}
