import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble } from '../doubles/feishu-double.js';
import type { SlackDouble } from '../doubles/slack-double.js';
import { createE2eEnvironment, postFeishu, postSlack, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { modelAsked as modelAskedOf } from './support/model-asked.js';

/**
 * `/model` (CONTRACT §20) on all three platforms through the service: the list with buttons, a click choosing, a
 * typed choice, a refusal with the list, and the choice kept across a restart, used by the next model call (the
 * OpenAI double sees it) and named by /status.
 */
let environment: E2eEnvironment;
let slack: SlackDouble;
let feishu: FeishuDouble;
let service: ServiceProcess;

// the agent's model (gpt-4o-mini, the default) plus three more; gpt-4o-mini listed again is not listed twice; the
// last one's name is too long for Telegram's 64 bytes of callback data
const LONG = 'llama-3.3-70b-instruct-served-by-a-compatible-server';
const MODELS = `gpt-4o, openai:gpt-4.1-mini, gpt-4o-mini, ${LONG}`;
const start = async () => {
  service = await startServiceProcess(
    environment.env({ LLM_MODELS: MODELS, LLM_STREAM: 'false', ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pw', ...environment.slackEnv(), ...environment.feishuEnv() }),
  );
};

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: true, feishu: true });
  slack = environment.slack!;
  feishu = environment.feishu!;
  await start();
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

const modelAsked = (text: string) => modelAskedOf(environment, text);

describe('/model on Telegram', () => {
  type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
  const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();
  const chatId = 6101;
  const messages = () => environment.telegram.visibleMessages(chatId);
  const send = async (text: string) => {
    const before = messages().length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
    return waitFor(() => messages().slice(before).find((message) => message.text !== ''), { what: `the answer to "${text}"` });
  };

  it('lists the models with buttons; a click chooses one; the next call uses it; a model not allowed is refused with the list', async () => {
    const list = await send('/model');
    expect(list.text).toContain('Models for this chat (now openai/gpt-4o-mini)');
    expect(list.text).toContain('1. openai/gpt-4o-mini: low price ($0.15 in, $0.6 out per million tokens) (in use)');
    expect(list.text).toContain('2. openai/gpt-4o: medium price ($2.5 in, $10 out per million tokens)');
    expect(list.text).toContain('3. openai/gpt-4.1-mini: low price');
    const buttons = buttonsOf(list.replyMarkup);
    expect(buttons.map((button) => button.text)).toEqual(['✓ gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', LONG]);
    expect(list.text).toContain(`4. openai/${LONG}: price unknown`);
    expect(buttons.map((button) => button.callback_data)).toEqual(['cmd:/model openai:gpt-4o-mini', 'cmd:/model openai:gpt-4o', 'cmd:/model openai:gpt-4.1-mini', 'cmd:/model 4']);

    const before = environment.telegram.callsOf('answerCallbackQuery').length;
    const count = messages().length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.callbackQuery(chatId, chatId, buttons[1]!.callback_data, list.messageId));
    await waitFor(() => environment.telegram.callsOf('answerCallbackQuery')[before], { what: 'the click answered' });
    const chosen = await waitFor(() => messages().slice(count).find((message) => message.text.startsWith('Model for this session')), { what: 'the choice confirmed' });
    expect(chosen.text).toBe('Model for this session: openai/gpt-4o (medium price ($2.5 in, $10 out per million tokens)). The next answer uses it.');

    await send('hello after the click');
    expect(await modelAsked('hello after the click')).toBe('gpt-4o');

    const refused = await send('/model claude-opus-4-1');
    expect(refused.text).toContain('"claude-opus-4-1" is not a model this chat may use. Choose one of:');
    expect(refused.text).toContain('2. openai/gpt-4o: medium price ($2.5 in, $10 out per million tokens) (in use)');
    expect(buttonsOf(refused.replyMarkup).map((button) => button.text)).toEqual(['gpt-4o-mini', '✓ gpt-4o', 'gpt-4.1-mini', LONG]);
    await send('hello after the refusal');
    expect(await modelAsked('hello after the refusal')).toBe('gpt-4o');

    // the long name's button carries its number, which chooses it the same
    const count2 = messages().length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.callbackQuery(chatId, chatId, buttons[3]!.callback_data, list.messageId));
    const long = await waitFor(() => messages().slice(count2).find((message) => message.text.startsWith('Model for this session')), { what: 'the long one chosen' });
    expect(long.text).toBe(`Model for this session: openai/${LONG} (price unknown). The next answer uses it.`);
    await send('hello to the long one');
    expect(await modelAsked('hello to the long one')).toBe(LONG);
  });

  it('a typed choice survives a restart: the next call uses it, /status names it, the run and its spans record it', async () => {
    expect((await send('/model gpt-4.1-mini')).text).toMatch(/^Model for this session: openai\/gpt-4\.1-mini/);
    await service.stop();
    await start();
    await send('hello after the restart');
    expect(await modelAsked('hello after the restart')).toBe('gpt-4.1-mini');
    const status = await send('/status');
    expect(status.text).toMatch(/^Model: openai\/gpt-4\.1-mini \(chosen with \/model\)$/m);
    const sessionKey = `agent:main:telegram:${environment.telegram.botId}:dm:${chatId}`;
    const [session] = await environment.sql`SELECT model FROM sessions WHERE key = ${sessionKey}`;
    expect(session!.model).toBe('openai:gpt-4.1-mini');
    const spans = await waitFor(async () => {
      const rows = await environment.sql`
        SELECT runs.model AS run_model, run_spans.name FROM runs JOIN run_spans ON run_spans.run_id = runs.id
         JOIN sessions ON sessions.id = runs.session_id
         WHERE sessions.key = ${sessionKey} AND run_spans.kind = 'llm' ORDER BY runs.started_at DESC`;
      return rows.length > 0 ? rows : undefined;
    });
    expect(spans[0]).toMatchObject({ run_model: 'gpt-4.1-mini', name: 'openai:gpt-4.1-mini' });
    const page = await (await fetch(`${service.url}/admin/sessions/${encodeURIComponent(sessionKey)}`, { headers: { authorization: `Basic ${btoa('ops:pw')}` } })).text();
    expect(page).toContain('<dt>Model</dt><dd><code>openai:gpt-4.1-mini</code> (chosen with /model)</dd>');

    // choosing the agent's own model again: the session follows the agent's model from now on
    expect((await send('/model 1')).text).toMatch(/^Model for this session: openai\/gpt-4o-mini/);
    const [reset] = await environment.sql`SELECT model FROM sessions WHERE key = ${sessionKey}`;
    expect(reset!.model).toBeNull();
    await send('hello with the default');
    expect(await modelAsked('hello with the default')).toBe('gpt-4o-mini');
  });
});

describe('/model in a Telegram forum topic', () => {
  type Keyboard = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
  const buttonsOf = (markup: unknown) => ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat();
  const chatId = -100701;
  const chat = { id: chatId, type: 'supergroup', title: 'Forum', is_forum: true };
  const inTopic = { message_thread_id: 77, is_topic_message: true };
  const messages = () => environment.telegram.visibleMessages(chatId);
  const mention = (text: string, topic: object) => {
    const name = `@${environment.telegram.botUsername}`;
    return environment.telegram.makeUpdate.groupText(chatId, 7001, `${name} ${text}`, { chat, entities: [{ type: 'mention', offset: 0, length: name.length }], ...topic });
  };

  it('the list goes to the topic, and a click there chooses for the topic only, not the group', async () => {
    let before = messages().length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.groupText(chatId, 7001, '/model', { chat, ...inTopic }));
    const list = await waitFor(() => messages().slice(before).find((message) => message.text.startsWith('Models for this chat')), { what: 'the list in the topic' });
    expect(list.threadId).toBe(77);

    before = messages().length;
    const click = environment.telegram.makeUpdate.callbackQuery(chatId, 7002, buttonsOf(list.replyMarkup)[1]!.callback_data, list.messageId) as any;
    click.callback_query.message = { ...click.callback_query.message, chat, ...inTopic };
    await postTelegramUpdate(service.url, click);
    const chosen = await waitFor(() => messages().slice(before).find((message) => message.text.startsWith('Model for this session')), { what: 'the choice in the topic' });
    expect(chosen.threadId).toBe(77);

    const base = `agent:main:telegram:${environment.telegram.botId}:group:${chatId}`;
    const rows = await environment.sql`SELECT key, model FROM sessions WHERE key LIKE ${base + '%'} ORDER BY key`;
    expect(rows.map((row) => [row.key, row.model])).toEqual([[`${base}:topic:77`, 'openai:gpt-4o']]);
    // MODEL_CHOICE unset (`session`): nothing is kept for the chat (model-choice-chat.test.ts: `chat`)
    expect(await environment.sql`SELECT model FROM chat_models WHERE chat_key = ${base}`).toHaveLength(0);

    await postTelegramUpdate(service.url, mention('hello in the topic', inTopic));
    expect(await modelAsked('hello in the topic')).toBe('gpt-4o');
    await postTelegramUpdate(service.url, mention('hello in general', {}));
    expect(await modelAsked('hello in general')).toBe('gpt-4o-mini');
  });
});

describe('/model on Slack', () => {
  type Button = { type: string; action_id: string; text: { text: string }; value: string };
  const buttonsOf = (blocks: unknown[] | undefined) =>
    (blocks ?? []).flatMap((block) => ((block as { type: string }).type === 'actions' ? ((block as { elements: Button[] }).elements ?? []) : []));
  const user = 'U0MODEL01';
  const channel = `D${user.slice(1)}`;
  const visible = () => [...slack.messages.values()].filter((message) => message.channel === channel && !message.deleted);
  const awaitNew = (count: number, what: string, match: (text: string) => boolean = () => true) =>
    waitFor(() => visible().slice(count).find((message) => match(message.text)), { what });

  it('the slash command lists with buttons, a click chooses, the next call uses it, an unknown model is refused with the list', async () => {
    let count = visible().length;
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/commands', slack.makeEvent.slashCommand('/model', { channel, user }), { form: true }));
    const list = await awaitNew(count, 'the list');
    expect(list.text).toContain('Models for this chat (now openai/gpt-4o-mini)');
    const buttons = buttonsOf(list.blocks);
    expect(buttons.map((button) => [button.text.text, button.value])).toEqual([
      ['✓ gpt-4o-mini', '/model openai:gpt-4o-mini'],
      ['gpt-4o', '/model openai:gpt-4o'],
      ['gpt-4.1-mini', '/model openai:gpt-4.1-mini'],
      [LONG, `/model openai:${LONG}`],
    ]);

    count = visible().length;
    const click = slack.makeEvent.blockAction(channel, user, buttons[2]!.value, list.ts, undefined, buttons[2]!.action_id);
    expect((await postSlack(service.url, slack.signedRequest('/webhooks/slack/interactions', click, { form: true }))).status).toBe(200);
    expect((await awaitNew(count, 'the choice confirmed')).text).toMatch(/^Model for this session: openai\/gpt-4\.1-mini/);

    count = visible().length;
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/events', slack.makeEvent.dm(user, 'hello from slack')));
    await awaitNew(count, 'the answer');
    expect(await modelAsked('hello from slack')).toBe('gpt-4.1-mini');

    count = visible().length;
    await postSlack(service.url, slack.signedRequest('/webhooks/slack/commands', slack.makeEvent.slashCommand('/model', { channel, user, text: 'gpt-5' }), { form: true }));
    const refused = await awaitNew(count, 'the refusal');
    expect(refused.text).toContain('"gpt-5" is not a model this chat may use. Choose one of:');
    expect(buttonsOf(refused.blocks)).toHaveLength(4);
  });
});

describe('/model on Feishu', () => {
  type Button = { tag: string; text: { content: string }; value: { command: string; chat_type: string } };
  const buttonsOf = (card: any): Button[] => (card?.elements ?? []).flatMap((element: any) => (element.tag === 'action' ? element.actions : []));
  const userOpenId = 'ou_model_user';
  const chatId = 'oc_model_chat';
  const repliesTo = (messageId: string) => [...feishu.messages.values()].filter((message) => message.parentId === messageId);
  const send = async (text: string) => {
    const event = feishu.events.p2pText(text, { userOpenId, chatId });
    expect((await postFeishu(service.url, feishu.delivery(event))).status).toBe(200);
    return waitFor(() => repliesTo(event.event.message.message_id)[0], { what: `the answer to "${text}"` });
  };

  it('lists as a card with buttons; a click chooses; the next call uses it; an unknown model is refused with the list', async () => {
    const list = await send('/model');
    expect(list.msgType).toBe('interactive');
    expect(JSON.stringify(list.content)).toContain('Models for this chat (now openai/gpt-4o-mini)');
    const buttons = buttonsOf(list.content);
    expect(buttons.map((button) => button.text.content)).toEqual(['✓ gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', LONG]);
    expect(buttons[1]!.value).toEqual({ command: '/model openai:gpt-4o', chat_type: 'dm' });

    const delivery = feishu.delivery(feishu.events.cardAction(buttons[1]!.value, { userOpenId, messageId: list.messageId, chatId }));
    const response = await fetch(`${service.url}/webhooks/feishu/cards`, { method: 'POST', headers: { 'content-type': 'application/json', ...delivery.headers }, body: delivery.rawBody });
    expect(response.status).toBe(200);
    const chosen = await waitFor(() => repliesTo(list.messageId)[0], { what: 'the choice confirmed' });
    expect(JSON.stringify(chosen.content)).toContain('Model for this session: openai/gpt-4o');

    await send('hello from feishu');
    expect(await modelAsked('hello from feishu')).toBe('gpt-4o');

    const refused = await send('/model anthropic:claude-haiku-4-5');
    expect(JSON.stringify(refused.content)).toContain('not a model this chat may use');
    expect(buttonsOf(refused.content)).toHaveLength(4);
  });
});

describe('/model and budgets', () => {
  const sendTo = async (chatId: number, text: string) => {
    const messages = () => environment.telegram.visibleMessages(chatId);
    const before = messages().length;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(chatId, text));
    return waitFor(() => messages().slice(before).find((message) => message.text !== ''), { what: `the answer to "${text}"` });
  };

  it('a chosen model is budgeted at its own price: the dearer model uses up a limit the default model stays under', async () => {
    // the limit: four calls of the default model as this service answers them (the same prompt, nearly)
    const [cheap] = await environment.sql`
      SELECT runs.cost_usd FROM runs JOIN sessions ON sessions.id = runs.session_id
       WHERE runs.model = 'gpt-4o-mini' AND runs.status = 'completed' AND sessions.channel = 'telegram' ORDER BY runs.started_at DESC LIMIT 1`;
    const limit = 4 * Number(cheap!.cost_usd);
    expect(limit).toBeGreaterThan(0);
    await service.stop();
    service = await startServiceProcess(
      environment.env({ LLM_MODELS: MODELS, LLM_STREAM: 'false', BUDGET_USER_DAILY_USD: String(limit) }),
    );

    const thrifty = 6201;
    expect((await sendTo(thrifty, 'first on the default')).text).toBe('You said: first on the default');
    expect((await sendTo(thrifty, 'second on the default')).text).toBe('You said: second on the default');

    const lavish = 6202;
    expect((await sendTo(lavish, '/model gpt-4o')).text).toMatch(/^Model for this session: openai\/gpt-4o /);
    expect((await sendTo(lavish, 'first on gpt-4o')).text).toBe('You said: first on gpt-4o');
    const [dear] = await environment.sql`SELECT cost_usd FROM runs WHERE model = 'gpt-4o' ORDER BY started_at DESC LIMIT 1`;
    expect(Number(dear!.cost_usd)).toBeGreaterThanOrEqual(limit);
    const calls = environment.openai.modelCalls.length;
    expect((await sendTo(lavish, 'second on gpt-4o')).text).toMatch(/^Sorry, your daily usage limit has been reached\./);
    expect(environment.openai.modelCalls.length).toBe(calls);
  });
});
