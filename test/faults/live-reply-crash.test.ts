import { describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { waitFor } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS } from './support/fault-service.js';
import { ownDeployment } from './support/own-deployment.js';


const ANSWER = Array.from({ length: 8 }, (_, index) => `Sentence ${index} of an answer that takes a few seconds to write.`).join(' ');

interface Platform {
  name: string;
  env(): Record<string, string>;
  ask(gatewayUrl: string): Promise<void>;
  /** The bot's messages in the chat, with the calls that created and removed messages there. */
  seen(): Array<{ id: string; text: string }>;
  creates(): number;
  removals(): number;
}

const platforms: Array<(environment: E2eEnvironment) => Platform> = [
  (environment) => ({
    name: 'telegram',
    env: () => ({}),
    ask: async (url) => void (await postTelegramUpdate(url, environment.telegram.makeUpdate.privateText(8901, 'write slowly'))),
    seen: () => environment.telegram.visibleMessages(8901).map((message) => ({ id: String(message.messageId), text: message.text })),
    creates: () => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === 8901 && !call.failed).length,
    removals: () => environment.telegram.callsOf('deleteMessage').filter((call) => !call.failed).length,
  }),
  (environment) => ({
    name: 'slack',
    env: () => ({ ...environment.slackEnv(), TELEGRAM_BOT_TOKEN: '' }),
    ask: async (url) => void (await postSlack(url, environment.slack!.signedRequest('/webhooks/slack/events', environment.slack!.makeEvent.dm('U0LIVE001', 'write slowly')))),
    seen: () => [...environment.slack!.messages.values()].filter((message) => message.channel === 'D0LIVE001' && !message.deleted).map((message) => ({ id: message.ts, text: message.text })),
    creates: () => environment.slack!.callsOf('chat.postMessage').filter((call) => !call.failed).length,
    removals: () => environment.slack!.callsOf('chat.delete').filter((call) => !call.failed).length,
  }),
  (environment) => ({
    name: 'feishu',
    env: () => ({ ...environment.feishuEnv(), TELEGRAM_BOT_TOKEN: '' }),
    ask: async (url) => void (await postFeishu(url, environment.feishu!.delivery(environment.feishu!.events.p2pText('write slowly', { messageId: 'om_live_question' })))),
    seen: () =>
      [...environment.feishu!.messages.values()].filter((message) => message.parentId === 'om_live_question' && !message.deleted).map((message) => ({ id: message.messageId, text: JSON.stringify(message.content) })),
    // a repeated uuid creates nothing: count the messages, not the calls
    creates: () => [...environment.feishu!.messages.values()].filter((message) => message.parentId === 'om_live_question').length,
    removals: () => environment.feishu!.callsOf(/^DELETE \/open-apis\/im\/v1\/messages\/om_bot_/).length,
  }),
];

const PLATFORM_NAMES = ['telegram', 'slack', 'feishu'];

/**
 * Each test has its own doubles, database, queue prefix and service processes, and stops them at its end: nothing
 * is shared, so the three platforms run side by side (`describe.concurrent`); most of each is waiting on a stream
 * and a takeover.
 */
describe.concurrent('fault: a worker is SIGKILLed while its answer streams into a live preview', () => {
  platforms.forEach((make, index) => {
    it(`${PLATFORM_NAMES[index]}: the takeover streams again into the same preview (recorded when shown); nothing is left behind or doubled`, async ({ onTestFinished }) => {
      // a short lease: the takeover starts within seconds of the kill, not after the default 15 s
      const { environment, start } = await ownDeployment(onTestFinished, { LLM_STREAM: 'true', TURN_LEASE_MS: '3000' });
      const platform = make(environment);
      expect(platform.name).toBe(PLATFORM_NAMES[index]);
      // the first run streams for about 15 s: the kill lands mid-answer even on a slow machine (what is left of it
      // after the kill costs no time); the takeover's run streams the same answer again, for about 4 s
      environment.openai.script.push(reply.text(ANSWER, { chunkSize: 4, chunkDelayMs: 120 }), reply.text(ANSWER, { chunkSize: 4, chunkDelayMs: 30 }));
      const gateway = await start({ ROLE: 'gateway', OPENAI_API_KEY: '', ...platform.env() });
      const doomed = await start({ ROLE: 'worker', ...platform.env() });
      await platform.ask(gateway.url);
      await waitFor(() => platform.seen().length === 1, { timeoutMs: 30_000, what: 'the live preview' });
      await new Promise((resolve) => setTimeout(resolve, 500)); // the preview is recorded right after it appears
      const preview = platform.seen()[0]!;
      // killed first, then the worker that takes over starts: a start takes seconds on a loaded machine, and the
      // kill must land while the answer is still streaming
      await doomed.kill('SIGKILL');
      expect(platform.seen()[0]!.text).not.toContain('Sentence 7 of an answer'); // killed mid-stream
      await start({ ROLE: 'worker', ...platform.env() });

      await waitFor(async () => (await environment.sql`SELECT id FROM runs`).length === 1, { timeoutMs: 60_000, what: 'the run stored by the takeover' });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const seen = platform.seen();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.id).toBe(preview.id);
      expect(seen[0]!.text).toContain('Sentence 7 of an answer');
      expect(platform.creates()).toBe(1);
      expect(platform.removals()).toBe(0);
    }, FAULT_TIMEOUT_MS);
  });
});
