import { randomBytes } from 'node:crypto';

/**
 * Sends `count` unauthenticated POSTs to distinct random `/webhooks/x<i>?q=<random>` paths (and a
 * Telegram delivery whose query string carries `secret`), then reports the size of `/metrics` before
 * and after, and its final text.
 */
export async function randomWebhookPathsGrowth(baseUrl: string, count: number, secret: string): Promise<{ before: number; after: number; text: string }> {
  const before = (await (await fetch(`${baseUrl}/metrics`)).text()).length;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await fetch(`${baseUrl}/webhooks/x${index}?q=${randomBytes(6).toString('hex')}`, { method: 'POST', body: '{}' });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await fetch(`${baseUrl}/webhooks/telegram?secret_token=${secret}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return { before, after: text.length, text };
}
