import { describe, expect, it } from 'vitest';
import { postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { waitFor, type ServiceProcess } from '../support/service-process.js';
import { FAULT_TIMEOUT_MS } from './support/fault-service.js';
import { ownDeployment } from './support/own-deployment.js';
import { inDoubt } from './support/in-doubt-metric.js';

/** A platform's side of the scenario: how a user writes, what the chat shows, which call is the takeover's look-up. */
interface Platform {
  name: 'telegram' | 'slack';
  env(): Record<string, string>;
  /** Holds the bot's next message on its way: not in the chat until released. */
  holdNextSend(): { arrived: Promise<void>; release: () => void };
  ask(gatewayUrl: string, text: string): Promise<void>;
  /** The texts of the bot's messages the user sees in the chat of the question. */
  seen(): string[];
  /** How many calls looking for a part in doubt the platform has seen. */
  lookups(): number;
}

const platforms: Array<(environment: E2eEnvironment) => Platform> = [
  (environment) => ({
    name: 'telegram',
    env: () => ({}),
    holdNextSend: () => environment.telegram.holdBeforeCommit('sendMessage'),
    async ask(url, text) {
      expect((await postTelegramUpdate(url, environment.telegram.makeUpdate.privateText(8802, text))).status).toBe(200);
    },
    seen: () => environment.telegram.visibleMessages(8802).map((message) => message.text),
    // the probe of the ids after the intent's
    lookups: () => environment.telegram.callsOf('editMessageReplyMarkup').length,
  }),
  (environment) => ({
    name: 'slack',
    env: () => ({ ...environment.slackEnv(), TELEGRAM_BOT_TOKEN: '' }),
    holdNextSend: () => environment.slack!.holdBeforeCommit('chat.postMessage'),
    async ask(url, text) {
      expect((await postSlack(url, environment.slack!.signedRequest('/webhooks/slack/events', environment.slack!.makeEvent.dm('U0STALL01', text)))).status).toBe(200);
    },
    seen: () => [...environment.slack!.messages.values()].filter((message) => message.channel === 'D0STALL01' && !message.deleted).map((message) => message.text),
    lookups: () => environment.slack!.callsOf('conversations.history').filter((call) => call.params.include_all_metadata !== undefined).length,
  }),
];

const PLATFORM_NAMES: Array<Platform['name']> = ['telegram', 'slack'];

/**
 * Issue 53 (Slack D0SOAK0009 in the soak): a worker stalls with its message on the way; the message reaches the
 * platform only after the takeover first looked for it. The takeover must wait for the stalled send's recorded
 * deadline and find the message then, not conclude `not_sent` and send a second answer. Each test has its own
 * doubles, database, queue prefix and processes (`describe.concurrent`).
 */
describe.concurrent('fault: a worker stalls (SIGSTOP) with its message on its way; it lands after the takeover looked for it', () => {
  platforms.forEach((make, index) => {
    it(`${PLATFORM_NAMES[index]}: the takeover waits for the stalled send’s deadline, finds the late message and sends nothing more`, async ({ onTestFinished }) => {
      const { environment, start } = await ownDeployment(onTestFinished);
      const platform = make(environment);
      expect(platform.name).toBe(PLATFORM_NAMES[index]);
      const gateway = await start({ ROLE: 'gateway', OPENAI_API_KEY: '', ...platform.env() });
      const stalled = await start({ ROLE: 'worker', ...platform.env() });
      const send = platform.holdNextSend();
      await platform.ask(gateway.url, 'answer me exactly once');
      // the worker's message is on its way (held on the platform's side, not yet in the chat) when the worker stalls
      await send.arrived;
      stalled.child.kill('SIGSTOP');
      try {
        const before = platform.lookups();
        const survivor = await start({ ROLE: 'worker', ...platform.env() });
        // the survivor took the turn over (the stalled worker stopped beating) and looked for the part in doubt
        await waitFor(() => platform.lookups() > before, { timeoutMs: 60_000, what: 'the takeover looking for the part in doubt' });
        // only now does the stalled message reach the chat; then the stalled worker runs on
        send.release();
        await waitFor(() => platform.seen().length >= 1, { timeoutMs: 10_000, what: 'the late message in the chat' });
        stalled.child.kill('SIGCONT');
        await waitFor(async () => Object.keys(await inDoubt(survivor, platform.name)).length > 0, { timeoutMs: 60_000, what: 'the part in doubt settled' });
        const stored = await waitFor(
          async () => {
            const [row] = await environment.sql`SELECT delivered_message_ids FROM runs`;
            return row;
          },
          { timeoutMs: 60_000, what: 'the run stored' },
        );
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // a would-be second message shows itself
        expect(platform.seen()).toHaveLength(1);
        expect(platform.seen()[0]).toContain('You said: answer me exactly once');
        expect(stored.delivered_message_ids).toHaveLength(1);
        expect(await inDoubt(survivor, platform.name)).toEqual({ found: 1 });
      } finally {
        stalled.child.kill('SIGCONT');
      }
    }, FAULT_TIMEOUT_MS);
  });
});
