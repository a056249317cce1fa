import { expect } from 'vitest';
import { parseTelegramHtml } from '../../doubles/telegram-double.js';
import type { E2eEnvironment } from '../../support/e2e-environment.js';
import { waitFor } from '../../support/service-process.js';

/** Checks shared by the progress-line e2e tests, over the environment `current()` gives (set in their beforeAll). */
export function progressLineChecks(current: () => E2eEnvironment, neverStored: string[]) {
  const runsOf = (keyPattern: string) =>
    current().sql`SELECT r.status, r.silent FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${keyPattern} ORDER BY r.started_at`;

  return {
    runsOf,
    /** The lines are in no stored message of the session (history, tool results, the answer). */
    async expectNotStored(keyPattern: string, runs = 1): Promise<void> {
      await waitFor(async () => (await runsOf(keyPattern)).length === runs, { what: 'the run stored' });
      const stored = await current().sql`SELECT m.parts FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.key LIKE ${keyPattern}`;
      expect(stored.length).toBeGreaterThanOrEqual(4); // user, assistant tool call, tool result, answer
      for (const line of neverStored) expect(JSON.stringify(stored)).not.toContain(line);
    },
    /**
     * Lets the held model call answer: its pause may start only after the line was seen (the line goes out when the
     * tool starts, before the next model request arrives), so the pauses are ended until `answered` holds.
     */
    releaseUntil: (answered: () => boolean, what: string) =>
      waitFor(
        () => {
          current().openai.endPauses();
          return answered();
        },
        { what, timeoutMs: 15_000 },
      ),
  };
}

/** The text a Telegram user reads of an HTML message. */
export function telegramText(html: unknown): string {
  const parsed = parseTelegramHtml(String(html));
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.text;
}
