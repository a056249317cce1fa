import { Agent, request } from 'node:http';

/** POSTs Telegram updates to the service's webhook over keep-alive connections, timing each request. */
export class WebhookClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 128 });
  private readonly url: URL;

  constructor(
    baseUrl: string,
    private readonly secret: string,
  ) {
    this.url = new URL('/webhooks/telegram', baseUrl);
    if (this.url.hostname !== '127.0.0.1') throw new Error('the benchmark only talks to 127.0.0.1');
  }

  /** Resolves with the HTTP status and the client-measured time from the request's start to the end of its answer. */
  post(update: unknown, timeoutMs = 10_000): Promise<{ status: number; ms: number }> {
    const body = JSON.stringify(update);
    return new Promise((resolve) => {
      const startedAt = performance.now();
      const req = request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-telegram-bot-api-secret-token': this.secret,
          },
          timeout: timeoutMs,
        },
        (response) => {
          response.resume();
          response.once('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - startedAt }));
          response.once('error', () => resolve({ status: 0, ms: performance.now() - startedAt }));
        },
      );
      req.once('timeout', () => req.destroy(new Error('timeout')));
      req.once('error', () => resolve({ status: 0, ms: performance.now() - startedAt }));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
