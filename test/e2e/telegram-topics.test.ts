import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** A message mentioning the bot in a forum supergroup: in topic `threadId`, or in "General" (no thread id at all). */
function forumMention(chatId: number, userId: number, text: string, topic: { message_thread_id?: number; is_topic_message?: boolean } = {}) {
  const mention = `@${environment.telegram.botUsername}`;
  return environment.telegram.makeUpdate.groupText(chatId, userId, `${mention} ${text}`, {
    chat: { id: chatId, type: 'supergroup', title: 'Forum', is_forum: true },
    entities: [{ type: 'mention', offset: 0, length: mention.length }],
    ...topic,
  });
}

async function storedFor(sessionKeyEnd: string) {
  return waitFor(async () => {
    const rows = (await environment.storedMessages()).filter((row) => row.session_key.endsWith(sessionKeyEnd));
    return rows.length >= 2 ? rows : undefined;
  }, { what: `the turn stored under …${sessionKeyEnd}` });
}

const answered = (chatId: number) => () => {
  const visible = environment.telegram.visibleMessages(chatId).filter((message) => message.text.startsWith('You said'));
  return visible.length > 0 ? visible : undefined;
};

describe('Telegram forum topics, end to end', () => {
  it('answers in the topic the question came from, as that topic’s session', async () => {
    await postTelegramUpdate(service.url, forumMention(-100601, 6001, 'in topic 42', { message_thread_id: 42, is_topic_message: true }));
    const [answer] = await waitFor(answered(-100601), { what: 'the answer' });
    expect(answer).toMatchObject({ threadId: 42, text: 'You said: in topic 42' });
    const stored = await storedFor(':group:-100601:topic:42');
    expect(stored.map((row) => row.role)).toEqual(['user', 'assistant']);
  });

  it('answers in the main chat, once, when Telegram refuses the topic', async () => {
    environment.telegram.refuseThread(-100602, 42);
    await postTelegramUpdate(service.url, forumMention(-100602, 6002, 'the topic is gone', { message_thread_id: 42, is_topic_message: true }));
    const visible = await waitFor(answered(-100602), { what: 'the answer in the main chat' });
    const stored = await storedFor(':group:-100602:topic:42');
    expect(stored.map((row) => row.role)).toEqual(['user', 'assistant']);
    const [run] = await environment.sql`SELECT r.status, r.delivered_message_ids FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key LIKE ${'%:group:-100602:topic:42'}`;
    expect(run).toMatchObject({ status: 'completed', delivered_message_ids: [String(visible[0]!.messageId)] });
    expect(visible).toHaveLength(1);
    expect(visible[0]).toMatchObject({ text: 'You said: the topic is gone' });
    expect(visible[0]!.threadId).toBeUndefined();
    const refused = environment.telegram.calls.filter((call) => call.params.chat_id === -100602 && call.failed);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((call) => call.params.message_thread_id === 42)).toBe(true);
  });

  it('treats "General" as the group: the group’s session, replies without a thread id', async () => {
    // no message_thread_id at all, then a reply inside General (a thread id, but not a topic message)
    await postTelegramUpdate(service.url, forumMention(-100603, 6003, 'hello general'));
    await waitFor(answered(-100603), { what: 'the first answer' });
    await postTelegramUpdate(service.url, forumMention(-100603, 6003, 'still general', { message_thread_id: 77 }));
    const visible = await waitFor(() => {
      const found = answered(-100603)();
      return found !== undefined && found.length >= 2 ? found : undefined;
    }, { what: 'the second answer' });
    expect(visible.every((message) => message.threadId === undefined)).toBe(true);
    const sends = environment.telegram.calls.filter((call) => call.params.chat_id === -100603 && /^send/.test(call.method));
    expect(sends.length).toBeGreaterThan(0);
    expect(sends.every((call) => !('message_thread_id' in call.params))).toBe(true);
    // the turn is stored after its answer is sent: wait for the second one's rows
    const rows = await waitFor(async () => {
      const stored = (await environment.storedMessages()).filter((row) => row.session_key.includes(':group:-100603'));
      return stored.length >= 4 ? stored : undefined;
    }, { what: 'both turns stored' });
    expect(new Set(rows.map((row) => row.session_key))).toEqual(new Set([expect.stringMatching(/^agent:main:telegram:\d+:group:-100603$/)]));
    expect(rows.map((row) => row.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});
