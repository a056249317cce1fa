import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import type { RecordedRequest } from '../doubles/http-double.js';
import { reply, type ModelReply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import type { TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * CONTRACT §17 end to end: the OpenAI double refuses a model named `…overloaded…` with 503 every time, the Anthropic
 * double answers as the fallback; then an OpenAI primary whose stream breaks mid-answer while the chat shows its
 * draft, on Telegram, Slack and Feishu: each chat ends with one complete answer and nothing of the broken one.
 */
let environment: E2eEnvironment;
let telegram: TelegramDouble;
let slack: SlackDouble;
let feishu: FeishuDouble;

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true, feishu: true });
  ({ telegram } = environment);
  slack = environment.slack!;
  feishu = environment.feishu!;
});

afterAll(async () => {
  await environment?.close();
});

const mentions = (calls: RecordedRequest[], marker: string) => calls.filter((call) => JSON.stringify(call.body.messages).includes(marker));
const answersTo = (chatId: number) => telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

async function runOf(keyPattern: string) {
  return waitFor(
    async () => {
      const [run] = await environment.sql`SELECT r.id, r.status, r.provider, r.model FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${keyPattern}`;
      return run;
    },
    { what: `the run of ${keyPattern}`, timeoutMs: 20_000 },
  );
}

async function llmSpansOf(runId: string) {
  return environment.sql`SELECT name, error IS NOT NULL AS failed FROM run_spans WHERE run_id = ${runId} AND kind = 'llm' ORDER BY position`;
}

function metricValue(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{`) && entry.includes(labels));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('an always-overloaded primary (OpenAI 503) with an Anthropic fallback', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startServiceProcess(
      environment.env({
        LLM_MODEL: 'gpt-overloaded',
        LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5',
        ANTHROPIC_API_KEY: 'sk-ant-test',
        // one retry of its own first (CONTRACT §17: after the model's own retries)
        LLM_MAX_RETRIES: '1',
      }),
    );
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('is answered by the fallback, once, after the primary\u2019s own retries; the span names the model that answered', async () => {
    const chatId = 8801;
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, `hello failover (chat ${chatId})`));
    await waitFor(() => answersTo(chatId).length > 0, { what: 'the answer', timeoutMs: 30_000 });
    const run = await runOf(`%:dm:${chatId}`);
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(answersTo(chatId).map((call) => call.params.text)).toEqual([`You said: hello failover (chat ${chatId})`]);
    expect(telegram.visibleMessages(chatId)).toHaveLength(1);
    const primaryCalls = mentions(environment.openai.modelCalls, `chat ${chatId}`);
    expect(primaryCalls.map((call) => [call.body.model, call.status])).toEqual([
      ['gpt-overloaded', 503],
      ['gpt-overloaded', 503],
    ]);
    const fallbackCalls = mentions(environment.anthropic.modelCalls, `chat ${chatId}`);
    expect(fallbackCalls.map((call) => [call.body.model, call.status])).toEqual([['claude-haiku-4-5', 200]]);
    expect(run).toMatchObject({ status: 'completed', provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(await llmSpansOf(String(run.id))).toEqual([
      { name: 'openai:gpt-overloaded', failed: true },
      { name: 'anthropic:claude-haiku-4-5', failed: false },
    ]);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metricValue(metrics, 'bot_llm_failovers_total', 'model="openai:gpt-overloaded",reason="server"')).toBe(1);
    expect(await environment.redis.pttl(environment.keys.modelCooldown('openai:gpt-overloaded'))).toBeGreaterThan(30_000);
  });

  it('while the primary cools down, the next turn goes straight to the fallback: the primary sees no request', async () => {
    const chatId = 8802;
    const primaryBefore = environment.openai.modelCalls.length;
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, `cooling (chat ${chatId})`));
    await waitFor(() => answersTo(chatId).length > 0, { what: 'the answer', timeoutMs: 20_000 });
    expect(answersTo(chatId).map((call) => call.params.text)).toEqual([`You said: cooling (chat ${chatId})`]);
    expect(environment.openai.modelCalls.length).toBe(primaryBefore);
    expect(mentions(environment.anthropic.modelCalls, `chat ${chatId}`)).toHaveLength(1);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metricValue(metrics, 'bot_llm_failovers_total', 'model="openai:gpt-overloaded",reason="cooldown"')).toBeGreaterThanOrEqual(1);
  });
});

describe('a stream that breaks mid-answer, with the draft showing (LLM_STREAM, DMs)', () => {
  let service: ServiceProcess;
  const PARTIAL = 'Draft from the primary that breaks off in the middle of this sentence and never comes back to finish what it began to say';
  const FINAL = 'The fallback wrote the complete answer in one piece.';
  const cooldownKey = () => environment.keys.modelCooldown('openai:gpt-4o-mini');
  /** About two seconds of text, cut after 16 deltas: the chat shows the draft (it appears after 0.8 s) before it breaks. */
  const breaking = (): ModelReply => ({ parts: [{ type: 'text', text: PARTIAL }], fault: { type: 'cut', afterChunks: 16 }, chunkSize: 6, chunkDelayMs: 120 });

  beforeAll(async () => {
    service = await startServiceProcess(
      environment.env({
        LLM_STREAM: 'true',
        LLM_FALLBACK_MODELS: 'anthropic:claude-haiku-4-5',
        ANTHROPIC_API_KEY: 'sk-ant-test',
        LLM_MAX_RETRIES: '0',
        // short, so that each platform's turn starts on the primary again
        LLM_FAILOVER_COOLDOWN_MS: '1000',
        ...environment.slackEnv(),
        ...environment.feishuEnv(),
      }),
    );
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** Once the fallback's words show, the broken attempt's are gone: the draft never shows the two run together. */
  function expectNoMix(texts: string[]): void {
    const fallbackShown = texts.filter((text) => text.includes('The fallback'));
    expect(fallbackShown.length).toBeGreaterThan(0);
    for (const text of fallbackShown) expect(text).not.toContain('Draft from the primary');
  }

  async function breakOnce(): Promise<void> {
    await waitFor(async () => (await environment.redis.exists(cooldownKey())) === 0, { what: 'the primary to cool down' });
    environment.openai.script.push(breaking());
    // slowly too: the drafts show the fallback's words while it writes
    environment.anthropic.script.push(reply.text(FINAL, { chunkSize: 4, chunkDelayMs: 150 }));
  }

  it('Telegram: the draft of the broken attempt becomes the one complete answer', async () => {
    const chatId = 8811;
    await breakOnce();
    await postTelegramUpdate(service.url, telegram.makeUpdate.privateText(chatId, `break the stream (chat ${chatId})`));
    await runOf(`%:telegram:%:dm:${chatId}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const shown = [...telegram.callsOf('sendMessage'), ...telegram.callsOf('editMessageText')].filter((call) => call.params.chat_id === chatId && !call.failed);
    expect(shown.some((call) => String(call.params.text).startsWith('Draft from the primary')), 'the broken attempt was shown as a draft').toBe(true);
    expectNoMix(shown.map((call) => String(call.params.text)));
    expect(telegram.visibleMessages(chatId).map((message) => message.text)).toEqual([FINAL]);
    expect(mentions(environment.anthropic.modelCalls, `chat ${chatId}`)).toHaveLength(1);
  });

  it('Slack: the placeholder of the broken attempt ends as the one complete answer', async () => {
    await breakOnce();
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slack.makeEvent.dm('U0FAILOVER1', 'break the stream (slack)')));
    await runOf('%:slack:%:dm:U0FAILOVER1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const shown = [...slack.callsOf('chat.postMessage'), ...slack.callsOf('chat.update')].filter((call) => call.params.channel === 'D0FAILOVER1' && !call.failed);
    expect(shown.some((call) => String(call.params.text).startsWith('Draft from the primary')), 'the broken attempt was shown as a placeholder').toBe(true);
    expectNoMix(shown.map((call) => String(call.params.text)));
    const visible = [...slack.messages.values()].filter((message) => message.channel === 'D0FAILOVER1' && !message.deleted);
    expect(visible.map((message) => message.text)).toEqual([FINAL]);
  });

  it('Feishu: the card of the broken attempt ends as the one complete answer', async () => {
    await breakOnce();
    const event = feishu.events.p2pText('break the stream (feishu)', { chatId: 'oc_failover_1', userOpenId: 'ou_failover_1' });
    const messageId = event.event.message.message_id;
    await postFeishu(service.url, feishu.delivery(event));
    await runOf('%:feishu:%:dm:ou_failover_1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cardText = (content: unknown) => JSON.stringify(content);
    const shown = [...feishu.callsOf(`POST /open-apis/im/v1/messages/${messageId}/reply`), ...feishu.callsOf(/^PATCH \/open-apis\/im\/v1\/messages\//)].filter((call) => call.code === 0);
    expect(shown.some((call) => cardText(call.body.content).includes('Draft from the primary')), 'the broken attempt was shown as a card').toBe(true);
    expectNoMix(shown.map((call) => cardText(call.body.content)));
    const visible = [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted);
    expect(visible).toHaveLength(1);
    expect(cardText(visible[0]!.content)).toContain(FINAL);
    expect(cardText(visible[0]!.content)).not.toContain('Draft from the primary');
  });
});
