import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTelegramHtml } from '../doubles/telegram-double.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  service = await startServiceProcess(environment.env());
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

describe('Telegram webhook, end to end', () => {
  it('answers a private message with the model’s reply and stores the turn once', async () => {
    const update = environment.telegram.makeUpdate.privateText(1001, 'hello there');
    const response = await postTelegramUpdate(service.url, update);
    expect(response.status).toBe(200);

    const [sent] = await waitFor(() => (sentTo(1001).length > 0 ? sentTo(1001) : undefined), { what: 'the answer' });
    expect(sent!.params.text).toBe('You said: hello there');
    expect(sent!.params.parse_mode).toBe('HTML');
    const modelRequest = environment.openai.modelCalls.at(-1)!;
    const lastMessage = modelRequest.body.messages.at(-1);
    expect(lastMessage.role).toBe('user');
    expect(JSON.stringify(lastMessage.content)).toContain('hello there');
    expect(modelRequest.body.messages[0].role).toBe('system');

    const stored = await waitFor(async () => {
      const rows = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(':dm:1001'));
      return rows.length >= 2 ? rows : undefined;
    });
    expect(stored.map((row) => [row.seq, row.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
    ]);
    expect(stored[0]!.session_key).toMatch(/^agent:main:telegram:\d+:dm:1001$/);
    const [run] = await environment.sql`SELECT status, delivered_message_ids FROM runs`;
    expect(run!.status).toBe('completed');
  });

  it('shows a typing indicator while working', async () => {
    const update = environment.telegram.makeUpdate.privateText(1002, 'are you typing?');
    await postTelegramUpdate(service.url, update);
    await waitFor(() => sentTo(1002).length > 0);
    const typing = environment.telegram.callsOf('sendChatAction').filter((call) => call.params.chat_id === 1002);
    expect(typing.length).toBeGreaterThan(0);
    expect(typing[0]!.params.action).toBe('typing');
    expect(typing[0]!.at).toBeLessThanOrEqual(sentTo(1002)[0]!.at);
  });

  it('answers an update delivered twice only once', async () => {
    const update = environment.telegram.makeUpdate.privateText(1003, 'only once please');
    const [first, second] = await Promise.all([postTelegramUpdate(service.url, update), postTelegramUpdate(service.url, update)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitFor(() => sentTo(1003).length > 0);
    // a redelivery after the answer must not produce a second one either
    expect((await postTelegramUpdate(service.url, update)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(sentTo(1003)).toHaveLength(1);
    const modelCallsForIt = environment.openai.modelCalls.filter((call) => JSON.stringify(call.body).includes('only once please'));
    expect(modelCallsForIt).toHaveLength(1);
  });

  it('refuses a wrong or missing secret with 401 and queues nothing', async () => {
    const jobsBefore = await environment.jobCount();
    const update = environment.telegram.makeUpdate.privateText(1004, 'forged');
    expect((await postTelegramUpdate(service.url, update, 'wrong-secret')).status).toBe(401);
    const missing = await fetch(`${service.url}/webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(update),
    });
    expect(missing.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await environment.jobCount()).toBe(jobsBefore);
    expect(sentTo(1004)).toHaveLength(0);
  });

  it('refuses malformed JSON with 400 and a body over 1 MiB with 413', async () => {
    expect((await postTelegramUpdate(service.url, '{"update_id": 1, "message": ')).status).toBe(400);
    const huge = JSON.stringify({ update_id: 1, padding: 'x'.repeat(1024 * 1024 + 10) });
    expect((await postTelegramUpdate(service.url, huge)).status).toBe(413);
  });

  it('splits a 10,000-character answer into messages of at most 4096 characters, losing nothing', async () => {
    const paragraphs = Array.from({ length: 50 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum dolor sit amet '.repeat(7)}`.trim());
    const long = paragraphs.join('\n\n');
    expect(long.length).toBeGreaterThan(10_000);
    environment.openai.script.push(long);
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(1005, 'write a lot'));
    await waitFor(() => sentTo(1005).length >= 3, { what: 'all chunks' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks = sentTo(1005).map((call) => String(call.params.text));
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(4096);
    const visible = chunks.map((chunk) => {
      const parsed = parseTelegramHtml(chunk);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed.text;
    });
    const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
    expect(normalize(visible.join('\n\n'))).toBe(normalize(long));
  });

  it('renders Markdown as Telegram HTML with <, > and & escaped', async () => {
    environment.openai.script.push('**Bold** and `a < b && c > d` plus 1 < 2 & 3');
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(1006, 'format something'));
    const [sent] = await waitFor(() => (sentTo(1006).length > 0 ? sentTo(1006) : undefined));
    expect(sent!.params.parse_mode).toBe('HTML');
    expect(sent!.params.text).toBe('<b>Bold</b> and <code>a &lt; b &amp;&amp; c &gt; d</code> plus 1 &lt; 2 &amp; 3');
  });

  it('reports readiness of Redis and PostgreSQL', async () => {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });

  it('exposes Prometheus metrics of webhooks, turns, LLM calls, database writes and queues', async () => {
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    expect(value(/^bot_webhook_requests_total\{channel="telegram",status="200"\} (\d+)/m)).toBeGreaterThanOrEqual(5);
    expect(value(/^bot_webhook_requests_total\{channel="telegram",status="401"\} (\d+)/m)).toBe(2);
    expect(value(/^bot_turns_total\{outcome="completed"\} (\d+)/m)).toBeGreaterThanOrEqual(4);
    expect(value(/^bot_llm_calls_total\{provider="openai",model="gpt-4o-mini",result="ok"\} (\d+)/m)).toBeGreaterThanOrEqual(4);
    expect(value(/^bot_db_statements_total\{kind="write"\} (\d+)/m)).toBeGreaterThanOrEqual(4);
    expect(value(/^bot_platform_api_calls_total\{channel="telegram",result="ok"\} (\d+)/m)).toBeGreaterThanOrEqual(5);
    expect(text).toMatch(/^bot_queue_jobs\{queue="inbound",state="completed"\} \d+/m);
    expect(text).toMatch(/^bot_webhook_ack_seconds_bucket/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('does not mount the queue dashboard without ADMIN_PASSWORD', async () => {
    expect((await fetch(`${service.url}/admin/queues`)).status).toBe(404);
  });
});
