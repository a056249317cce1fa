import { BotError } from '../../src/core/index.js';

/**
 * Reads a download's body, stopping as soon as more than `maxBytes` arrived (a declared Content-Length
 * over the cap is refused before reading). The caller names the file for the error.
 */
export async function readCapped(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BotError('too-large', `${what} is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BotError('too-large', `${what} is larger than ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** A download's HTTP failure as a BotError: gone files (403/404/410) are final, server trouble is retryable. */
export function downloadError(status: number, what: string): BotError {
  if (status === 404 || status === 410 || status === 403) return new BotError('not-found', `${what} is no longer available (HTTP ${status})`);
  return new BotError('platform', `${what} could not be downloaded (HTTP ${status})`, { isRetryable: status >= 500 || status === 429 });
}
