import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelegramDouble, type TelegramDouble } from '../doubles/telegram-double.js';
import { createE2eEnvironment, WEBHOOK_SECRET, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI, startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

const BETA_SECRET = 'beta-webhook-secret';

let environment: E2eEnvironment;
let beta: TelegramDouble;
let service: ServiceProcess;
let configDirectory: string;

/** Two agents on two Telegram bots (two doubles), one group override, one chat binding. */
function configFile(alpha: TelegramDouble, second: TelegramDouble): string {
  return `
agents:
  - id: alpha
    model: gpt-alpha
    systemPrompt: You are Alpha, the general assistant.
  - id: beta
    model: gpt-beta
    systemPrompt: You are Beta, the support agent.
    maxIterations: 3
channels:
  telegram:
    streaming: "off"
    accounts:
      - name: main
        agent: alpha
        token: \${ALPHA_TOKEN}
        mode: webhook
        webhookSecret: \${ALPHA_SECRET}
        apiRoot: ${alpha.apiRoot}
      - name: support
        agent: beta
        token: \${BETA_TOKEN}
        mode: webhook
        webhookSecret: ${BETA_SECRET}
        apiRoot: ${second.apiRoot}
    groups:
      "-100777":
        requireMention: false
        systemPrompt: In this group, answer in one sentence.
bindings:
  - agent: beta
    channel: telegram
    account: main
    chat: -100999
`;
}

beforeAll(async () => {
  environment = await createE2eEnvironment();
  beta = await startTelegramDouble({ token: '987654321:BETA-double-token', botUsername: 'BetaDoubleBot' });
  configDirectory = mkdtempSync(join(tmpdir(), 'config-file-e2e-'));
  const file = join(configDirectory, 'agents.yaml');
  writeFileSync(file, configFile(environment.telegram, beta));
  service = await startServiceProcess(
    environment.env({
      // the accounts come from the file; TELEGRAM_* would override its first account
      TELEGRAM_BOT_TOKEN: '',
      TELEGRAM_API_ROOT: '',
      TELEGRAM_MODE: '',
      TELEGRAM_WEBHOOK_SECRET: '',
      CONFIG_FILE: file,
      PUBLIC_URL: 'https://bot.example.com',
      ALPHA_TOKEN: environment.telegram.token,
      ALPHA_SECRET: WEBHOOK_SECRET,
      BETA_TOKEN: beta.token,
    }),
  );
});

afterAll(async () => {
  await service?.stop();
  await beta?.close();
  await environment?.close();
  if (configDirectory) rmSync(configDirectory, { recursive: true, force: true });
});

const post = (path: string, update: unknown, secret: string) =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
    body: JSON.stringify(update),
  });
const toAlpha = (update: unknown) => post('/webhooks/telegram', update, WEBHOOK_SECRET);
const toBeta = (update: unknown) => post('/webhooks/telegram/support', update, BETA_SECRET);
const sent = (double: TelegramDouble, chatId: number) =>
  double.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed).map((call) => String(call.params.text));
const callMentioning = (marker: string) => environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages).includes(marker));
const systemOf = (call: { body: any }) => String(call.body.messages[0].content);
const sessionKeys = async () => (await environment.sql`SELECT key FROM sessions ORDER BY key`).map((row) => String(row.key));

describe('a config file with two agents on two Telegram bots', () => {
  it('answers the first bot with its agent: its model and system prompt', async () => {
    expect((await toAlpha(environment.telegram.makeUpdate.privateText(3001, 'hello alpha'))).status).toBe(200);
    await waitFor(() => sent(environment.telegram, 3001).length > 0, { what: 'the alpha bot’s answer' });
    expect(sent(environment.telegram, 3001)).toEqual(['You said: hello alpha']);
    const call = callMentioning('hello alpha')!;
    expect(call.body.model).toBe('gpt-alpha');
    expect(systemOf(call)).toMatch(/^You are Alpha, the general assistant\./);
    expect(systemOf(call)).not.toContain('Beta');
    expect(await sessionKeys()).toContain(`agent:alpha:telegram:${environment.telegram.botId}:dm:3001`);
  });

  it('answers the second bot, on its own route, with the other agent', async () => {
    expect((await toBeta(beta.makeUpdate.privateText(3002, 'hello beta'))).status).toBe(200);
    await waitFor(() => sent(beta, 3002).length > 0, { what: 'the beta bot’s answer' });
    expect(sent(beta, 3002)).toEqual(['You said: hello beta']);
    expect(sent(environment.telegram, 3002)).toEqual([]);
    const call = callMentioning('hello beta')!;
    expect(call.body.model).toBe('gpt-beta');
    expect(systemOf(call)).toMatch(/^You are Beta, the support agent\./);
    expect(await sessionKeys()).toContain(`agent:beta:telegram:${beta.botId}:dm:3002`);
  });

  it('registers each bot’s own webhook route and secret with PUBLIC_URL', async () => {
    const registered = (double: TelegramDouble) => double.callsOf('setWebhook').map((call) => [call.params.url, call.params.secret_token]);
    expect(registered(environment.telegram)).toEqual([['https://bot.example.com/webhooks/telegram', WEBHOOK_SECRET]]);
    expect(registered(beta)).toEqual([['https://bot.example.com/webhooks/telegram/support', BETA_SECRET]]);
  });

  it('checks each bot’s own webhook secret on its own route', async () => {
    expect((await post('/webhooks/telegram/support', beta.makeUpdate.privateText(3003, 'forged'), WEBHOOK_SECRET)).status).toBe(401);
    expect((await post('/webhooks/telegram', environment.telegram.makeUpdate.privateText(3003, 'forged'), BETA_SECRET)).status).toBe(401);
  });

  it('answers every message of a group whose override turns requireMention off, with the group’s prompt appended', async () => {
    await toAlpha(environment.telegram.makeUpdate.groupText(-100777, 3010, 'no mention needed here'));
    await toAlpha(environment.telegram.makeUpdate.groupText(-100778, 3010, 'but here it is needed'));
    await waitFor(() => sent(environment.telegram, -100777).length > 0, { what: 'the group answer' });
    const call = callMentioning('no mention needed here')!;
    expect(systemOf(call)).toMatch(/## Instructions for this chat\nIn this group, answer in one sentence\.$/);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sent(environment.telegram, -100778)).toEqual([]);
    expect(callMentioning('but here it is needed')).toBeUndefined();
  });

  it('routes a bound chat of the first bot to the other agent, answering through the bot it was written to', async () => {
    await toAlpha(environment.telegram.makeUpdate.mention(-100999, 3020, 'which agent am I talking to?'));
    await waitFor(() => sent(environment.telegram, -100999).length > 0, { what: 'the bound group’s answer' });
    const call = callMentioning('which agent am I talking to?')!;
    expect(call.body.model).toBe('gpt-beta');
    expect(systemOf(call)).toMatch(/^You are Beta/);
    expect(await sessionKeys()).toContain(`agent:beta:telegram:${environment.telegram.botId}:group:-100999`);
  });

  it('/status names the model of the session’s agent', async () => {
    await toBeta(beta.makeUpdate.command(3002, 3002, 'status'));
    await waitFor(() => sent(beta, 3002).length > 1, { what: 'the status answer' });
    expect(sent(beta, 3002)[1]).toMatch(/^Model: openai\/gpt-beta\n/);
  });
});

describe('an invalid config file', () => {
  it('stops start-up with one line naming the file and the bad field', async () => {
    const file = join(configDirectory, 'broken.yaml');
    writeFileSync(file, 'agents:\n  - id: main\n  - id: second\n    model: 5\n');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const env = { PATH: process.env.PATH ?? '', ...environment.env({ CONFIG_FILE: 'broken.yaml' }) };
      execFile(process.execPath, [CLI, 'start'], { cwd: configDirectory, env, timeout: 20_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('configuration error: broken.yaml: /agents/1/model: Expected string\n');
  });
});
