import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * TYPING_DELAY_MS at its default (1 s; the e2e environment sets 0 for the other tests): a turn quicker than that
 * answers without a typing action, a slower one shows it from the delay on. Counted on the Telegram double.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;
const DEFAULT_DELAY_MS = 1_000;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  // '' unsets the e2e environment's 0: the service's default applies
  service = await startServiceProcess(environment.env({ TYPING_DELAY_MS: '' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const callsTo = (method: string, chatId: number) => environment.telegram.callsOf(method).filter((call) => call.params.chat_id === chatId && !call.failed);

async function storedRun(chatId: number): Promise<void> {
  await waitFor(async () => {
    const rows = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(`:dm:${chatId}`) && row.role === 'assistant');
    return rows.length > 0 ? rows : undefined;
  }, { what: `the turn of chat ${chatId} stored` });
}

describe('the working indicator waits for TYPING_DELAY_MS', () => {
  it('sends no typing action for a turn that answers sooner', async () => {
    environment.openai.settings.latencyMs = 0;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2101, 'a quick one'));
    await waitFor(() => (callsTo('sendMessage', 2101).length > 0 ? true : undefined), { what: 'the answer' });
    await storedRun(2101);
    expect(callsTo('sendChatAction', 2101)).toHaveLength(0);
  });

  it('shows "typing…" from the delay on for a slower turn, before the answer', async () => {
    environment.openai.settings.latencyMs = DEFAULT_DELAY_MS + 1_000;
    try {
      const postedAt = Date.now();
      await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(2102, 'a slow one'));
      const [answer] = await waitFor(() => (callsTo('sendMessage', 2102).length > 0 ? callsTo('sendMessage', 2102) : undefined), { what: 'the answer' });
      await storedRun(2102);
      const typing = callsTo('sendChatAction', 2102);
      expect(typing).toHaveLength(1);
      expect(typing[0]!.params.action).toBe('typing');
      expect(typing[0]!.at - postedAt).toBeGreaterThanOrEqual(DEFAULT_DELAY_MS);
      expect(typing[0]!.at).toBeLessThanOrEqual(answer!.at);
    } finally {
      environment.openai.settings.latencyMs = 0;
    }
  });
});
