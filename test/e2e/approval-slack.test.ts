import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import { createE2eEnvironment, postSlack, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

const CONFIG = `
agents:
  - id: main
    toolPolicy:
      requireApproval: [write_*]
`;

let environment: E2eEnvironment;
let slack: SlackDouble;
let service: ServiceProcess;
let configDirectory: string;

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true });
  slack = environment.slack!;
  configDirectory = mkdtempSync(join(tmpdir(), 'approval-slack-'));
  writeFileSync(join(configDirectory, 'bot.config.yaml'), CONFIG);
  environment.openai.script.respondWith((request, lastUserText) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    return messages.at(-1)?.role === 'tool' ? `Tool said: ${messages.at(-1)!.content}` : `You said: ${lastUserText}`;
  });
  service = await startServiceProcess(
    environment.env({ TELEGRAM_BOT_TOKEN: '', LLM_STREAM: 'false', CONFIG_FILE: join(configDirectory, 'bot.config.yaml'), ...environment.slackEnv() }),
  );
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
  rmSync(configDirectory, { recursive: true, force: true });
});

type Button = { type: string; text: { text: string }; value: string };
const buttonsOf = (blocks: unknown[] | undefined) =>
  (blocks ?? []).flatMap((block) => ((block as { type: string }).type === 'actions' ? ((block as { elements: Button[] }).elements ?? []) : []));
const visible = (channel: string) => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted);
const click = (channel: string, user: string, value: string, ts: string) =>
  postSlack(service.url, slack.signedRequest('/webhooks/slack/interactions', slack.makeEvent.blockAction(channel, user, value, ts), { form: true }));

describe('approval in chat (Slack Block Kit buttons)', () => {
  it('posts three buttons, refuses another user ephemerally, and Allow once runs the tool once and answers', async () => {
    const user = 'U0APPR001';
    const channel = `D${user.slice(1)}`;
    const notes = join(environment.dataDir, 'workspaces', user, 'notes.txt');
    environment.openai.script.push(reply.toolCall('write_file', { path: 'notes.txt', content: 'from slack\n' }));
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slack.makeEvent.dm(user, 'please write it down')));

    const prompt = await waitFor(() => visible(channel).find((message) => buttonsOf(message.blocks).length === 3), { what: 'the approval request' });
    expect(buttonsOf(prompt.blocks).map((button) => button.text.text)).toEqual(['Allow once', 'Allow for this session', 'Deny']);
    expect(prompt.text).toContain('write_file');
    const once = buttonsOf(prompt.blocks)[0]!.value;

    const stranger = await click(channel, 'U0STRANGER', once, prompt.ts);
    expect(stranger.status).toBe(200);
    await waitFor(() => slack.callsOf('chat.postEphemeral').find((call) => call.params.user === 'U0STRANGER'), { what: 'the refusal to the stranger' });
    expect(slack.callsOf('chat.postEphemeral').at(-1)!.params).toMatchObject({ channel, text: 'Only the person who asked can answer this request.' });
    expect(existsSync(notes)).toBe(false);

    expect((await click(channel, user, once, prompt.ts)).status).toBe(200);
    const answer = await waitFor(() => visible(channel).find((message) => message.text.startsWith('Tool said:')), { what: 'the answer after approval' });
    expect(answer.text).toContain('Wrote');
    expect(readFileSync(notes, 'utf8')).toBe('from slack\n');
    const settled = slack.messages.get(`${channel}:${prompt.ts}`)!;
    expect(settled.text).toContain('Allowed once by user-u0appr001.');
    expect(buttonsOf(settled.blocks)).toEqual([]);

    await click(channel, user, once, prompt.ts);
    await waitFor(() => slack.callsOf('chat.postEphemeral').find((call) => call.params.user === user), { what: 'the refusal of a second click' });
    expect(slack.callsOf('chat.postEphemeral').at(-1)!.params.text).toBe('This request was already answered.');
  });

  it('refuses an unsigned click', async () => {
    const fields = slack.makeEvent.blockAction('D0X', 'U0X', 'apv:abc:once', '1.000001');
    const response = await fetch(`${service.url}/webhooks/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    expect(response.status).toBe(401);
  });
});
