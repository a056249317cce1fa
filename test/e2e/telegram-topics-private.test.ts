import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Topics in private chats (threaded mode, Bot API 9.3; getMe says `has_topics_enabled`) through the built service,
 * with TELEGRAM_NEW_CONVERSATION_TOPIC on: each DM topic is its own session and its live draft streams in the
 * topic; `/new` opens a fresh topic (createForumTopic in the private chat, renamed after its first message with
 * editForumTopic) and leaves the one it came from as it was, or clears the current topic when Telegram will not open one; a DM topic Telegram refuses gets the answer
 * in the main chat.
 */
let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  // @BotFather's threaded mode: read from getMe when the channel starts
  environment.telegram.setTopicsInPrivateChats(true);
  service = await startServiceProcess(environment.env({ LLM_STREAM: 'true', TELEGRAM_NEW_CONVERSATION_TOPIC: 'true' }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const topicText = (userId: number, threadId: number, text: string) => environment.telegram.makeUpdate.privateTopicText(userId, threadId, text);
const topicCommand = (userId: number, threadId: number, text: string) =>
  environment.telegram.makeUpdate.privateTopicText(userId, threadId, text, { entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] });
const visibleIn = (chatId: number) => environment.telegram.visibleMessages(chatId);
const answerWith = (chatId: number, text: string) => waitFor(() => visibleIn(chatId).find((message) => message.text === text), { timeoutMs: 20_000, what: `“${text}”` });
/** The user messages the model was sent with the turn whose last message carries `marker`. */
const userTextsSentWith = (marker: string) => {
  const call = environment.openai.modelCalls.filter((candidate) => JSON.stringify(candidate.body.messages.at(-1)).includes(marker)).at(-1);
  return (call?.body.messages ?? []).filter((message: { role: string }) => message.role === 'user').map((message: unknown) => JSON.stringify(message));
};
const sessionKeysOf = async (userId: number) => new Set((await environment.storedMessages()).filter((row) => row.session_key.includes(`:dm:${userId}`)).map((row) => row.session_key));

describe('Telegram topics in private chats (threaded mode)', () => {
  it('each DM topic is a session; the live draft streams and settles in its topic', async () => {
    const userId = 7301;
    const { telegram, openai } = environment;
    openai.script.push(reply.text('A streamed answer in the first topic, long enough to be shown while it is written.', { chunkSize: 8, chunkDelayMs: 120 }));
    await postTelegramUpdate(service.url, topicText(userId, 900, 'first topic question'));
    const answer = await answerWith(userId, 'A streamed answer in the first topic, long enough to be shown while it is written.');
    expect(answer.threadId).toBe(900);
    const sends = telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === userId && !call.failed);
    expect(sends.length).toBeGreaterThan(0);
    expect(sends.every((call) => call.params.message_thread_id === 900)).toBe(true);
    expect(telegram.callsOf('editMessageText').filter((call) => call.params.chat_id === userId && !call.failed).length, 'the draft was edited in place').toBeGreaterThan(0);

    await postTelegramUpdate(service.url, topicText(userId, 901, 'second topic question'));
    expect((await answerWith(userId, 'You said: second topic question')).threadId).toBe(901);
    expect(userTextsSentWith('second topic question').join()).not.toContain('first topic question');
    await waitFor(async () => ((await sessionKeysOf(userId)).size === 2 ? true : undefined), { what: 'both turns stored' });
    expect([...(await sessionKeysOf(userId))].sort()).toEqual([expect.stringMatching(/:dm:7301:topic:900$/), expect.stringMatching(/:dm:7301:topic:901$/)]);
  });

  it('/new opens a fresh topic named after the date, renamed after its first message; the topic it came from keeps its conversation', async () => {
    const userId = 7302;
    const { telegram } = environment;
    await postTelegramUpdate(service.url, topicText(userId, 910, 'remember the OLD-TOPIC words'));
    await answerWith(userId, 'You said: remember the OLD-TOPIC words');

    await postTelegramUpdate(service.url, topicCommand(userId, 910, '/new'));
    const pointer = await waitFor(() => visibleIn(userId).find((message) => message.text.startsWith('Opened the topic')), { what: 'the pointer to the new topic' });
    const [topic] = telegram.topics.filter((candidate) => candidate.chatId === userId);
    expect(topic!.name).toMatch(/^New conversation · \d{1,2} [A-Z][a-z]{2},? \d{2}:\d{2}$/);
    expect(pointer).toMatchObject({ threadId: 910, text: `Opened the topic “${topic!.name}” for a fresh conversation; this one is kept as it was.` });
    expect((await answerWith(userId, 'A fresh conversation: write here.')).threadId).toBe(topic!.threadId);

    await postTelegramUpdate(service.url, topicText(userId, topic!.threadId, 'NEW-TOPIC hello\nand a second line'));
    const first = await waitFor(() => visibleIn(userId).find((message) => message.text.startsWith('You said: NEW-TOPIC hello')), { what: 'the first answer in the new topic' });
    expect(first.threadId).toBe(topic!.threadId);
    expect(userTextsSentWith('NEW-TOPIC hello')).toHaveLength(1);
    // named after its first message (editForumTopic), once
    await waitFor(() => topic!.name === 'NEW-TOPIC hello' || undefined, { what: 'the topic renamed' });
    await postTelegramUpdate(service.url, topicText(userId, topic!.threadId, 'NEW-TOPIC more'));
    await answerWith(userId, 'You said: NEW-TOPIC more');
    expect(topic!.renamed).toEqual(['NEW-TOPIC hello']);
    await postTelegramUpdate(service.url, topicText(userId, 910, 'OLD-TOPIC again'));
    await answerWith(userId, 'You said: OLD-TOPIC again');
    expect(userTextsSentWith('OLD-TOPIC again').join()).toContain('remember the OLD-TOPIC words');
  });

  it('/new clears the current topic when Telegram will not open one', async () => {
    const userId = 7303;
    const { telegram } = environment;
    await postTelegramUpdate(service.url, topicText(userId, 920, 'before REFUSED-NEW'));
    await answerWith(userId, 'You said: before REFUSED-NEW');
    telegram.failNext('createForumTopic', { status: 400, description: 'Bad Request: BOT_FORUM_CREATE_FORBIDDEN' });
    await postTelegramUpdate(service.url, topicCommand(userId, 920, '/new'));
    const cleared = await waitFor(() => visibleIn(userId).find((message) => message.text.startsWith('Started a fresh conversation')), { what: 'the reset confirmed' });
    expect(cleared.threadId).toBe(920);
    expect(telegram.topics.filter((candidate) => candidate.chatId === userId)).toHaveLength(0);
    await postTelegramUpdate(service.url, topicText(userId, 920, 'after REFUSED-NEW'));
    await answerWith(userId, 'You said: after REFUSED-NEW');
    expect(userTextsSentWith('after REFUSED-NEW')).toHaveLength(1);
  });

  it('a DM topic Telegram refuses gets the answer in the main chat, once', async () => {
    const userId = 7304;
    environment.telegram.refuseThread(userId, 930);
    await postTelegramUpdate(service.url, topicText(userId, 930, 'into a refused topic'));
    await answerWith(userId, 'You said: into a refused topic');
    const answers = visibleIn(userId).filter((message) => message.text === 'You said: into a refused topic');
    expect(answers).toHaveLength(1);
    expect(answers[0]!.threadId).toBeUndefined();
  });
});
