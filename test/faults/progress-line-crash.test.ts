import { describe, expect, it } from 'vitest';
import type { Update } from 'grammy/types';
import { reply } from '../doubles/model-script.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { scanKeys } from '../../src/redis/index.js';
import { postTelegramUpdate } from '../support/e2e-environment.js';
import { waitFor } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS } from './support/fault-service.js';
import { ownDeployment } from './support/own-deployment.js';

const LABEL = 'Looking through files…';
const ANSWER = 'Your workspace is empty, as far as I can see.';

/**
 * A worker is SIGKILLed while its draft (in a group: the line's own message) shows the progress line (the tool's result is saved, the model call after
 * it is held): the worker that takes the turn over continues after the saved step, sends no line of its own (it
 * runs no tool) and edits the answer over the old one in the same draft. One message in the chat, no line in it,
 * none stored.
 */
describe('fault: a worker is SIGKILLed while the progress line shows', () => {
  it('telegram: the takeover answers in the same draft; the line is not sent again, left behind or stored', async ({ onTestFinished }) => {
    await killedWhileTheLineShows(onTestFinished, 8911, (telegram, chatId) => telegram.makeUpdate.privateText(chatId, 'what is in my workspace?'));
  }, FAULT_TIMEOUT_MS);

  it('telegram group (no streaming): the takeover edits the answer into the line\'s own message, never a second one', async ({ onTestFinished }) => {
    await killedWhileTheLineShows(onTestFinished, -100_8912, (telegram, chatId) => telegram.makeUpdate.groupText(chatId, 8912, 'what is in my workspace?'));
  }, FAULT_TIMEOUT_MS);
});

async function killedWhileTheLineShows(
  onTestFinished: (listener: () => Promise<void> | void) => void,
  chatId: number,
  message: (telegram: TelegramDouble, chatId: number) => Update,
): Promise<void> {
  const { environment, start } = await ownDeployment(onTestFinished, { LLM_STREAM: 'true', TURN_LEASE_MS: '3000', GROUP_REQUIRE_MENTION: 'false' });
  // the killed worker's model call after the tool never answers; the takeover's gets the answer
  environment.openai.script.push(reply.toolCall('list_directory', {}), { fault: { type: 'hang' } }, reply.text(ANSWER));
  const gateway = await start({ ROLE: 'gateway', OPENAI_API_KEY: '' });
  const doomed = await start({ ROLE: 'worker' });
  await postTelegramUpdate(gateway.url, message(environment.telegram, chatId));
  const seen = () => environment.telegram.visibleMessages(chatId);
  await waitFor(() => seen().some((shown) => shown.text === LABEL), { timeoutMs: 30_000, what: 'the progress line' });
  // the draft's id is recorded right after it appears, for the takeover to adopt it
  const draftId = seen()[0]!.messageId;
  await waitFor(
    async () => {
      for (const key of await scanKeys(environment.redis, `*${environment.prefix}*:d:*`)) if (await environment.redis.hget(key, 'stream:live')) return true;
      return false;
    },
    { what: 'the draft recorded in the delivery record' },
  );
  await doomed.kill('SIGKILL');
  await start({ ROLE: 'worker' });

  await waitFor(async () => (await environment.sql`SELECT id FROM runs`).length === 1, { timeoutMs: 60_000, what: 'the run stored by the takeover' });
  await waitFor(() => seen().some((shown) => shown.text === ANSWER), { what: 'the answer' });
  expect(seen().map((shown) => ({ id: shown.messageId, text: shown.text }))).toEqual([{ id: draftId, text: ANSWER }]);
  const sends = environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
  expect(sends, 'the line is sent once, by the killed worker; the takeover edits the same message').toHaveLength(1);
  expect(environment.telegram.callsOf('deleteMessage').filter((call) => !call.failed)).toHaveLength(0);
  const stored = await environment.sql`SELECT parts FROM messages`;
  expect(JSON.stringify(stored)).toContain(ANSWER);
  expect(JSON.stringify(stored)).not.toContain(LABEL);
}
