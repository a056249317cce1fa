import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GREETING, DEFAULT_PROMPTS } from '../../channels/slack/assistant-threads.js';
import { startSocketModeServer } from '../channels/slack/websocket-server.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import { createE2eEnvironment, postSlack, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Slack's AI app surface through the built service (CONTRACT §20): a new assistant thread is greeted with suggested
 * prompts, the channel the person views reaches the model as one line, and the first exchange titles the thread in
 * Slack and in the console. Over the Events API with the built-in greeting, over Socket Mode with a configured one.
 */
const AUTH = { authorization: `Basic ${btoa('ops:pw')}` };
const EVENTS = '/webhooks/slack/events';

const greetingsIn = (slack: SlackDouble, dm: string, threadTs: string) =>
  slack.callsOf('chat.postMessage').filter((call) => call.params.channel === dm && call.params.thread_ts === threadTs && !call.failed);
const visibleIn = (slack: SlackDouble, dm: string, threadTs: string) => [...slack.messages.values()].filter((message) => message.channel === dm && message.threadTs === threadTs && !message.deleted);

async function consoleSessions(service: ServiceProcess): Promise<Array<{ key: string; title?: string }>> {
  const response = await fetch(`${service.url}/admin/api/sessions`, { headers: AUTH });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: Array<{ key: string; title?: string }> }).sessions;
}

describe('Slack assistant threads over the Events API (built-in greeting)', () => {
  let environment: E2eEnvironment;
  let slack: SlackDouble;
  let service: ServiceProcess;
  const post = (body: unknown) => postSlack(service.url, slack.signedRequest(EVENTS, body));

  beforeAll(async () => {
    environment = await createE2eEnvironment({ slack: true });
    slack = environment.slack!;
    environment.openai.script.respondWith((_request, text) => `You said: ${text.split('\n').at(-1)}`);
    service = await startServiceProcess(environment.env({ TELEGRAM_BOT_TOKEN: '', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', ...environment.slackEnv() }));
  });

  afterAll(async () => {
    await service?.stop();
    await environment?.close();
  });

  it('greets a new thread with the built-in greeting and prompts, once, and asks the model nothing', async () => {
    const started = slack.makeEvent.assistantThreadStarted('U0ASK0001', 'C0GENERAL');
    const threadTs = started.event.assistant_thread.thread_ts;
    expect((await post(started)).status).toBe(200);
    await waitFor(() => slack.suggestedPrompts.get(`D0ASK0001:${threadTs}`), { what: 'the suggested prompts' });
    expect(slack.suggestedPrompts.get(`D0ASK0001:${threadTs}`)).toEqual(DEFAULT_PROMPTS);
    expect(greetingsIn(slack, 'D0ASK0001', threadTs).map((call) => call.params.text)).toEqual([DEFAULT_GREETING]);
    expect(environment.openai.modelCalls).toEqual([]);
  });

  it('gives the next turn the channel the person views as one line, and titles the thread from its first exchange, in Slack and the console', async () => {
    slack.setChannelName('C0DESIGN', 'design-review');
    const started = slack.makeEvent.assistantThreadStarted('U0ASK0002', 'C0GENERAL');
    const threadTs = started.event.assistant_thread.thread_ts;
    expect((await post(started)).status).toBe(200);
    expect((await post(slack.makeEvent.assistantContextChanged('U0ASK0002', threadTs, 'C0DESIGN'))).status).toBe(200);
    expect((await post(slack.makeEvent.assistantMessage('U0ASK0002', threadTs, 'Summarize the open questions\nfrom this week'))).status).toBe(200);

    await waitFor(() => visibleIn(slack, 'D0ASK0002', threadTs).find((message) => message.text === 'You said: from this week'), { what: 'the answer in the thread' });
    const request = environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages).includes('Summarize the open questions'))!;
    const lastUser = JSON.stringify(request.body.messages.at(-1).content);
    expect(lastUser).toContain('[The user is viewing the Slack channel #design-review (C0DESIGN) beside this conversation]\\nSummarize the open questions');

    const title = 'Summarize the open questions';
    await waitFor(() => slack.threadTitles.get(`D0ASK0002:${threadTs}`), { what: 'the thread title' });
    expect(slack.threadTitles.get(`D0ASK0002:${threadTs}`)).toBe(title);
    const sessionKey = `agent:main:slack:${slack.teamId}:dm:U0ASK0002:thread:${threadTs}`;
    expect((await consoleSessions(service)).find((session) => session.key === sessionKey)?.title).toBe(title);

    // the second exchange keeps the title; the line is still there, naming the channel viewed now
    expect((await post(slack.makeEvent.assistantMessage('U0ASK0002', threadTs, 'and the decisions?'))).status).toBe(200);
    await waitFor(() => visibleIn(slack, 'D0ASK0002', threadTs).find((message) => message.text === 'You said: and the decisions?'), { what: 'the second answer' });
    const second = environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages.at(-1).content).includes('and the decisions?'))!;
    expect(JSON.stringify(second.body.messages.at(-1).content)).toContain('#design-review (C0DESIGN)');
    await waitFor(async () => (await environment.sql`SELECT count(*)::int AS n FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key = ${sessionKey}`)[0]!.n === 2, { what: 'both turns stored' });
    expect(slack.callsOf('assistant.threads.setTitle').filter((call) => call.params.thread_ts === threadTs)).toHaveLength(1);
    expect((await consoleSessions(service)).find((session) => session.key === sessionKey)?.title).toBe(title);
  });
});

describe('Slack assistant threads over Socket Mode (configured greeting)', () => {
  let environment: E2eEnvironment;
  let slack: SlackDouble;
  let service: ServiceProcess;
  let socket: Awaited<ReturnType<typeof startSocketModeServer>>;
  let configDirectory: string;
  let envelopes = 0;
  const send = (payload: unknown) => socket.send({ envelope_id: `env-${++envelopes}`, type: 'events_api', payload, accepts_response_payload: false, retry_attempt: 0, retry_reason: '' });
  const prompts = [
    { title: 'Summarize a document', message: 'Summarize the document I paste next in five bullet points.' },
    { title: 'Draft a reply', message: 'Help me draft a polite reply.' },
  ];

  beforeAll(async () => {
    environment = await createE2eEnvironment({ slack: true });
    slack = environment.slack!;
    socket = await startSocketModeServer();
    slack.setSocketUrl(socket.url);
    configDirectory = mkdtempSync(join(tmpdir(), 'slack-assistant-e2e-'));
    const file = join(configDirectory, 'bot.config.yaml');
    writeFileSync(file, `agents:\n  - id: main\n    assistant:\n      greeting: "Hi, I'm the **ops** helper."\n      prompts:\n${prompts.map((prompt) => `        - { title: "${prompt.title}", message: "${prompt.message}" }`).join('\n')}\n`);
    environment.openai.script.respondWith((_request, text) => `You said: ${text.split('\n').at(-1)}`);
    service = await startServiceProcess(
      environment.env({ TELEGRAM_BOT_TOKEN: '', CONFIG_FILE: file, ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', ...environment.slackEnv(), SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: 'xapp-1-A0APP001-assistant' }),
    );
    await waitFor(() => socket.connections === 1, { what: 'the Socket Mode connection' });
  });

  afterAll(async () => {
    await service?.stop();
    await socket?.close();
    await environment?.close();
    rmSync(configDirectory, { recursive: true, force: true });
  });

  it('greets with the configured greeting and prompts, then answers, carries the context line and titles the thread', async () => {
    const started = slack.makeEvent.assistantThreadStarted('U0SOCK001', 'C0GENERAL');
    const threadTs = started.event.assistant_thread.thread_ts;
    send(started);
    await waitFor(() => slack.suggestedPrompts.get(`D0SOCK001:${threadTs}`), { what: 'the suggested prompts' });
    expect(slack.suggestedPrompts.get(`D0SOCK001:${threadTs}`)).toEqual(prompts);
    expect(greetingsIn(slack, 'D0SOCK001', threadTs).map((call) => call.params.text)).toEqual(["Hi, I'm the *ops* helper."]);

    send(slack.makeEvent.assistantMessage('U0SOCK001', threadTs, 'Summarize the document I paste next in five bullet points.'));
    await waitFor(() => visibleIn(slack, 'D0SOCK001', threadTs).find((message) => message.text.startsWith('You said: Summarize the document')), { what: 'the answer' });
    const request = environment.openai.modelCalls.find((call) => JSON.stringify(call.body.messages).includes('five bullet points'))!;
    expect(JSON.stringify(request.body.messages.at(-1).content)).toContain('[The user is viewing the Slack channel #channel-c0general (C0GENERAL) beside this conversation]');
    await waitFor(() => slack.threadTitles.get(`D0SOCK001:${threadTs}`), { what: 'the thread title' });
    expect(slack.threadTitles.get(`D0SOCK001:${threadTs}`)).toBe('Summarize the document I paste next in five bullet points.');
    const sessionKey = `agent:main:slack:${slack.teamId}:dm:U0SOCK001:thread:${threadTs}`;
    expect((await consoleSessions(service)).find((session) => session.key === sessionKey)?.title).toBe('Summarize the document I paste next in five bullet points.');
  });
});
