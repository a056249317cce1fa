import { describe, expect, it } from 'vitest';
import { postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { waitFor, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS } from './support/fault-service.js';
import { ownDeployment } from './support/own-deployment.js';
import { inDoubt } from './support/in-doubt-metric.js';

/** A platform's side of the scenario: how a user writes, what the chat shows, which send the double holds back. */
interface Platform {
  name: 'telegram' | 'slack' | 'feishu';
  env(): Record<string, string>;
  /** Delays the answer to the bot's next message, which is in the chat meanwhile. */
  stallNextSend(ms: number): void;
  ask(gatewayUrl: string, text: string): Promise<void>;
  /** The texts of the bot's messages the user sees in the chat of the question. */
  seen(): string[];
}

const STALL_MS = 60_000;

const platforms: Array<(environment: E2eEnvironment) => Platform> = [
  (environment) => ({
    name: 'telegram',
    env: () => ({}),
    stallNextSend: (ms) => environment.telegram.stallAfterCommit('sendMessage', ms),
    async ask(url, text) {
      expect((await postTelegramUpdate(url, environment.telegram.makeUpdate.privateText(8801, text))).status).toBe(200);
    },
    seen: () => environment.telegram.visibleMessages(8801).map((message) => message.text),
  }),
  (environment) => ({
    name: 'slack',
    env: () => ({ ...environment.slackEnv(), TELEGRAM_BOT_TOKEN: '' }),
    stallNextSend: (ms) => environment.slack!.stallAfterCommit('chat.postMessage', ms),
    async ask(url, text) {
      expect((await postSlack(url, environment.slack!.signedRequest('/webhooks/slack/events', environment.slack!.makeEvent.dm('U0KILL001', text)))).status).toBe(200);
    },
    seen: () => [...environment.slack!.messages.values()].filter((message) => message.channel === 'D0KILL001' && !message.deleted).map((message) => message.text),
  }),
  (environment) => ({
    name: 'feishu',
    env: () => ({ ...environment.feishuEnv(), TELEGRAM_BOT_TOKEN: '' }),
    stallNextSend: (ms) => environment.feishu!.stallAfterCommit('/reply', ms),
    async ask(url, text) {
      const event = environment.feishu!.events.p2pText(text, { chatId: 'oc_kill_chat', messageId: 'om_kill_question' });
      expect((await postFeishu(url, environment.feishu!.delivery(event))).status).toBe(200);
    },
    seen: () =>
      [...environment.feishu!.messages.values()].filter((message) => message.parentId === 'om_kill_question' && !message.deleted).map((message) => JSON.stringify(message.content)),
  }),
];

const PLATFORM_NAMES: Array<Platform['name']> = ['telegram', 'slack', 'feishu'];

/**
 * Each test has its own doubles, database, queue prefix and service processes, and stops them at its end: nothing
 * is shared, so the three platforms run side by side (`describe.concurrent`); most of each is waiting for a takeover.
 */
describe.concurrent('fault: a worker is SIGKILLed after the platform took the answer, before the worker recorded it', () => {
  platforms.forEach((make, index) => {
    it(`${PLATFORM_NAMES[index]}: the takeover finds the answer in the chat and sends nothing more (one message), well before the lease runs out`, async ({ onTestFinished }) => {
      const { environment, start } = await ownDeployment(onTestFinished);
      const platform = make(environment);
      expect(platform.name).toBe(PLATFORM_NAMES[index]);
      // the default 15 s lease: the takeover must not wait for it
      const gateway = await start({ ROLE: 'gateway', OPENAI_API_KEY: '', ...platform.env() });
      const doomed = await start({ ROLE: 'worker', ...platform.env() });
      platform.stallNextSend(STALL_MS);
      await platform.ask(gateway.url, 'answer me exactly once');
      // the answer is in the chat; the only worker waits for the platform to confirm it
      await waitFor(() => platform.seen().length === 1, { timeoutMs: 30_000, what: 'the answer in the chat' });
      const survivor = await start({ ROLE: 'worker', ...platform.env() });
      const killedAt = Date.now();
      await doomed.kill('SIGKILL');
      const stored = await waitFor(
        async () => {
          const [row] = await environment.sql`SELECT delivered_message_ids FROM runs`;
          return row;
        },
        { timeoutMs: 40_000, what: 'the run stored by the takeover' },
      );
      const takeoverMs = Date.now() - killedAt;
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // a would-be second message shows itself
      expect(platform.seen()).toHaveLength(1);
      expect(platform.seen()[0]).toContain('You said: answer me exactly once');
      expect(stored.delivered_message_ids).toHaveLength(1);
      // Telegram and Slack find the part in the chat; Feishu is asked again under the same uuid and keeps the first
      expect(await inDoubt(survivor, platform.name)).toEqual(platform.name === 'feishu' ? { idempotent_resend: 1 } : { found: 1 });
      expect(takeoverMs).toBeLessThan(12_000);
      console.log(`[takeover] ${platform.name}: the run was stored ${takeoverMs} ms after the SIGKILL`);
    }, FAULT_TIMEOUT_MS);
  });
});
