import { postTelegramUpdate, type E2eEnvironment } from '../../support/e2e-environment.js';
import type { AcceptedMessage } from './ledger.js';

/**
 * Posts an update the way Telegram does: a non-2xx answer (503 while Redis is away) is retried with
 * backoff until accepted, so "accepted" means what Telegram would consider delivered.
 */
export async function deliverLikeTelegram(url: () => string, update: any, timeoutMs = 30_000): Promise<AcceptedMessage> {
  const deadline = Date.now() + timeoutMs;
  let delay = 200;
  for (;;) {
    try {
      const response = await postTelegramUpdate(url(), update);
      if (response.ok) return { chatId: update.message.chat.id, messageId: update.message.message_id };
    } catch {
      // the gateway is unreachable: retry like the platform does
    }
    if (Date.now() > deadline) throw new Error(`update ${update.update_id} was never accepted`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 2_000);
  }
}

/** Waits until every accepted message's run is stored (or the timeout passes; the audit then reports what is lost). */
export async function waitUntilStored(environment: E2eEnvironment, accepted: AcceptedMessage[], botId: number, timeoutMs = 60_000): Promise<void> {
  const keys = accepted.map((message) => `telegram:${botId}:${message.chatId}:${message.messageId}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await environment.sql`SELECT count(DISTINCT inbound_key)::int AS n FROM messages WHERE inbound_key = ANY(${keys})`;
    if (row!.n >= keys.length) {
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // let a would-be duplicate show itself
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A fault scenario's time budget: outages, takeovers and retries outlast vitest's 30 s default by design. */
export const FAULT_TIMEOUT_MS = 180_000;
