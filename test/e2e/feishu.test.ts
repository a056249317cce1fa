import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeishuDouble, StoredMessage } from '../doubles/feishu-double.js';
import { reply } from '../doubles/model-script.js';
import { createE2eEnvironment, postFeishu, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * Feishu through the built service: schema 2.0 deliveries (plain or encrypted, signed as Feishu signs
 * them) into the event subscription route, the real Lark SDK out to the Open API double. The service has
 * both a verification token and an encrypt key, so it takes plain and encrypted deliveries alike, but only
 * signed and fresh ones. LLM_STREAM is on (the default): DM answers stream into a card patched in place;
 * group answers are sent once, as posts or cards.
 */
let environment: E2eEnvironment;
let feishu: FeishuDouble;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment({ feishu: true });
  feishu = environment.feishu!;
  service = await startServiceProcess(environment.env({ TELEGRAM_BOT_TOKEN: '', ...environment.feishuEnv() }));
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

afterEach(() => {
  environment.openai.settings.latencyMs = 0;
  environment.openai.script.clear();
  environment.openai.script.respondWith((_request, text) => `You said: ${text}`);
});

/** A delivery as Feishu makes it: signed with the encrypt key (and encrypted with `encrypt`). */
const post = (body: unknown, options: { encrypt?: boolean; atMs?: number } = {}) => postFeishu(service.url, feishu.delivery(body, options));
/** Exactly this body and these headers, unsigned unless the headers sign it. */
const postRaw = (body: unknown, headers: Record<string, string> = {}) => postFeishu(service.url, body, headers);
const events = () => feishu.events;
/** The bot's messages that reply to a message and are still there, oldest first. */
const repliesTo = (messageId: string) =>
  [...feishu.messages.values()].filter((message) => message.parentId === messageId && !message.deleted).sort((a, b) => numberOf(a) - numberOf(b));
const numberOf = (message: StoredMessage) => Number(message.messageId.replace(/\D/g, ''));
const callsMentioning = (marker: string) => environment.openai.modelCalls.filter((call) => JSON.stringify(call.body.messages).includes(marker));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
const sessionKey = (kind: 'dm' | 'group', id: string) => `agent:main:feishu:${feishu.appId}:${kind}:${id}`;

/** What a reader sees of a message: a post's text runs, a card's markdown, a text message's text. */
function textOf(message: StoredMessage): string {
  const { content } = message;
  if (message.msgType === 'text') return String(content.text);
  if (message.msgType === 'interactive') return (content.body?.elements ?? content.elements ?? []).map((element: { content?: string }) => element.content ?? '').join('\n');
  const body = Object.values(content)[0] as { content: Array<Array<{ text?: string }>> };
  return body.content.map((line) => line.map((element) => element.text ?? '').join('')).join('\n');
}

async function runsOf(key: string) {
  return environment.sql`SELECT r.status FROM runs r JOIN sessions s ON s.id = r.session_id WHERE s.key = ${key} ORDER BY r.started_at`;
}

/** The text of the last user message of a model request. */
function lastUserText(request: { body: any }): string {
  const content = request.body.messages.at(-1).content;
  return typeof content === 'string' ? content : content.map((part: { text: string }) => part.text).join('');
}

describe('Feishu event subscription, end to end', () => {
  it('answers url_verification, plain and encrypted (it needs no signature), and refuses one with a wrong token', async () => {
    const plain = await postRaw(events().urlVerification('challenge-plain-1'));
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ challenge: 'challenge-plain-1' });

    const encrypted = await postRaw(feishu.encrypt(events().urlVerification('challenge-encrypted-2')));
    expect(encrypted.status).toBe(200);
    expect(await encrypted.json()).toEqual({ challenge: 'challenge-encrypted-2' });

    const forged = await postRaw({ ...events().urlVerification('challenge-forged-3'), token: 'not-the-token' });
    expect(forged.status).toBe(401);
  });

  it('answers a DM with a reply to the message, inside 3 s, with the typing reaction while working', async () => {
    const event = events().p2pText('hello there', { chatId: 'oc_dm_1', userOpenId: 'ou_dm_1' });
    const messageId = event.event.message.message_id;
    const startedAt = Date.now();
    const response = await post(event);
    expect(response.status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(3_000);

    await waitFor(() => repliesTo(messageId).some((message) => textOf(message) === 'You said: hello there'), { what: 'the answer' });
    const modelRequest = callsMentioning('hello there')[0]!;
    expect(modelRequest.body.messages[0].role).toBe('system');
    expect(lastUserText(modelRequest)).toContain('hello there');

    await waitFor(() => feishu.callsOf(`DELETE /open-apis/im/v1/messages/${messageId}/reactions/`).length > 0, { what: 'the typing reaction removed' });
    const added = feishu.callsOf(`POST /open-apis/im/v1/messages/${messageId}/reactions`);
    expect(added).toHaveLength(1);
    expect(added[0]!.body.reaction_type.emoji_type).toBe('Typing');
    expect([...feishu.reactions.values()].filter((reaction) => reaction.messageId === messageId)).toHaveLength(0);

    await waitFor(async () => (await runsOf(sessionKey('dm', 'ou_dm_1'))).length === 1, { what: 'the run stored' });
    expect(await runsOf(sessionKey('dm', 'ou_dm_1'))).toEqual([{ status: 'completed' }]);
    await pause(300);
    expect(repliesTo(messageId).map(textOf)).toEqual(['You said: hello there']);
  });

  it('answers a group mention with a reply to it, the bot’s mention stripped', async () => {
    const mention = events().groupMention('what is the plan?', { chatId: 'oc_group_1', userOpenId: 'ou_group_1' });
    const messageId = mention.event.message.message_id;
    expect((await post(mention)).status).toBe(200);
    const [answer] = await waitFor(() => (repliesTo(messageId).length > 0 ? repliesTo(messageId) : undefined), { what: 'the answer' });
    expect(answer!.msgType).toBe('post');
    expect(textOf(answer!)).toContain('what is the plan?');
    const text = lastUserText(callsMentioning('what is the plan?')[0]!);
    expect(text).not.toContain('@_user_1');
    expect(text.trim().endsWith('what is the plan?')).toBe(true);
    await waitFor(async () => (await runsOf(sessionKey('group', 'oc_group_1'))).length === 1, { what: 'the run in the group session' });
  });

  it('does not answer unaddressed group messages, but shows them to the model on the next mention', async () => {
    const chatId = 'oc_group_2';
    const first = events().groupText('lunch at noon?', { chatId, userOpenId: 'ou_lunch_a' });
    const second = events().groupText('sure, pizza', { chatId, userOpenId: 'ou_lunch_b' });
    expect((await post(first)).status).toBe(200);
    expect((await post(second)).status).toBe(200);
    // a message from an app (another bot) mentioning ours is not a turn either
    await post(events().groupMention('beep from an app', { chatId, senderType: 'app' }));
    await pause(600);
    expect(repliesTo(first.event.message.message_id)).toHaveLength(0);
    expect(repliesTo(second.event.message.message_id)).toHaveLength(0);
    expect(callsMentioning('lunch at noon?')).toHaveLength(0);

    const mention = events().groupMention('what did they decide?', { chatId, userOpenId: 'ou_lunch_c' });
    await post(mention);
    await waitFor(() => repliesTo(mention.event.message.message_id).length > 0, { what: 'the answer to the mention' });
    const text = lastUserText(callsMentioning('what did they decide?')[0]!);
    expect(text).toContain('[Messages since your last reply]');
    expect(text).toContain('ou_lunch_a: lunch at noon?');
    expect(text).toContain('ou_lunch_b: sure, pizza');
    expect(text.indexOf('lunch at noon?')).toBeLessThan(text.indexOf('sure, pizza'));
    expect(text).not.toContain('beep from an app');
    expect(text.trim().endsWith('what did they decide?')).toBe(true);
    await pause(300);
    expect(callsMentioning('beep from an app')).toHaveLength(0);
  });

  it('answers once when Feishu delivers the same event twice, or the same message under a new event id', async () => {
    const event = events().p2pText('only once please', { chatId: 'oc_dup_1', userOpenId: 'ou_dup_1' });
    const messageId = event.event.message.message_id;
    const responses = await Promise.all([post(event), post(event)]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    await waitFor(() => repliesTo(messageId).some((message) => textOf(message) === 'You said: only once please'), { what: 'the answer' });

    expect((await post(event)).status).toBe(200);
    const redelivered = { ...event, header: { ...event.header, event_id: `${event.header.event_id}-again` } };
    expect((await post(redelivered)).status).toBe(200);
    await pause(800);
    expect(repliesTo(messageId)).toHaveLength(1);
    expect(callsMentioning('only once please')).toHaveLength(1);
  });

  it('refuses a wrong verification token or a bad signature with 401, and queues nothing', async () => {
    const jobsBefore = await environment.jobCount();
    const modelCallsBefore = environment.openai.modelCalls.length;
    const event = events().p2pText('forged message', { chatId: 'oc_forged_1', userOpenId: 'ou_forged_1' });

    expect((await post({ ...event, header: { ...event.header, token: 'not-the-token' } })).status).toBe(401);
    const { token: _token, ...headerWithoutToken } = event.header;
    expect((await post({ ...event, header: headerWithoutToken })).status).toBe(401);
    expect((await post({ ...event, header: { ...event.header, token: 'not-the-token' } }, { encrypt: true })).status).toBe(401);

    const raw = JSON.stringify(event);
    const signed = feishu.signedHeaders(raw);
    expect((await postRaw(raw, { ...signed, 'x-lark-signature': signed['x-lark-signature']!.replace(/^./, (c) => (c === '0' ? '1' : '0')) })).status).toBe(401);
    expect((await postRaw(raw, feishu.signedHeaders(raw, 'not-the-encrypt-key'))).status).toBe(401);
    // signed over another body
    expect((await postRaw(raw, feishu.signedHeaders(raw.replace('forged message', 'forged massage')))).status).toBe(401);

    await pause(500);
    expect(await environment.jobCount()).toBe(jobsBefore);
    expect(environment.openai.modelCalls.length).toBe(modelCallsBefore);
    expect(repliesTo(event.event.message.message_id)).toHaveLength(0);
  });

  it('refuses unsigned, stale and future events with 401 although their token is right, and answers the fresh signed one', async () => {
    const jobsBefore = await environment.jobCount();
    const modelCallsBefore = environment.openai.modelCalls.length;
    const chatId = 'oc_unsigned_1';
    // the probe's forgery: a plain event with the verification token, naming any sender it likes
    const unsigned = events().p2pText('unsigned, forged sender', { chatId, userOpenId: 'ou_the_admin' });
    const unsignedResponse = await postRaw(unsigned);
    expect(unsignedResponse.status).toBe(401);
    expect(await unsignedResponse.json()).toEqual({ error: expect.stringContaining('signature') });
    expect((await postRaw(feishu.encrypt(events().p2pText('encrypted, unsigned', { chatId })))).status).toBe(401);
    const stale = events().p2pText('signed six minutes ago', { chatId });
    expect((await post(stale, { atMs: Date.now() - 6 * 60_000 })).status).toBe(401);
    expect((await post(events().p2pText('signed a year ago', { chatId }), { atMs: Date.now() - 365 * 24 * 3600_000 })).status).toBe(401);
    expect((await post(events().p2pText('signed six minutes ahead', { chatId }), { atMs: Date.now() + 6 * 60_000, encrypt: true })).status).toBe(401);
    await pause(300);
    expect(await environment.jobCount()).toBe(jobsBefore);
    expect(environment.openai.modelCalls.length).toBe(modelCallsBefore);

    const fresh = events().p2pText('signed just now', { chatId, userOpenId: 'ou_fresh_1' });
    expect((await post(fresh)).status).toBe(200);
    await waitFor(() => repliesTo(fresh.event.message.message_id).some((message) => textOf(message) === 'You said: signed just now'), { what: 'the answer' });
    expect(callsMentioning('signed six minutes ago')).toHaveLength(0);
    expect(callsMentioning('unsigned, forged sender')).toHaveLength(0);
    expect(repliesTo(stale.event.message.message_id)).toHaveLength(0);
  });

  it('answers encrypted, signed events (FEISHU_ENCRYPT_KEY)', async () => {
    const event = events().p2pText('an encrypted hello', { chatId: 'oc_enc_1', userOpenId: 'ou_enc_1' });
    const response = await post(event, { encrypt: true });
    expect(response.status).toBe(200);
    await waitFor(() => repliesTo(event.event.message.message_id).some((message) => textOf(message) === 'You said: an encrypted hello'), { what: 'the answer' });

    const signedEvent = events().groupMention('an encrypted and signed mention', { chatId: 'oc_enc_2', userOpenId: 'ou_enc_2' });
    const raw = JSON.stringify(feishu.encrypt(signedEvent));
    expect((await postRaw(raw, feishu.signedHeaders(raw))).status).toBe(200);
    await waitFor(() => repliesTo(signedEvent.event.message.message_id).length > 0, { what: 'the answer to the signed event' });
    expect(textOf(repliesTo(signedEvent.event.message.message_id)[0]!)).toContain('an encrypted and signed mention');
  });

  it('splits a 10,000-character answer into posts within Feishu’s limits, losing nothing', async () => {
    const paragraphs = Array.from({ length: 50 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum dolor sit amet '.repeat(7)}`.trim());
    const long = paragraphs.join('\n\n');
    expect(long.length).toBeGreaterThan(10_000);
    environment.openai.script.push(long);
    const mention = events().groupMention('write a lot', { chatId: 'oc_long_1' });
    const messageId = mention.event.message.message_id;
    await post(mention);
    await waitFor(() => repliesTo(messageId).length >= 3, { what: 'all parts' });
    await pause(500);
    const parts = repliesTo(messageId);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    // the double refuses bodies over 30 KB, so every part that is here was within it
    expect(feishu.callsOf(`/messages/${messageId}/reply`).every((call) => call.code === 0)).toBe(true);
    for (const part of parts) {
      expect(part.msgType).toBe('post');
      expect(textOf(part).length).toBeLessThanOrEqual(4_000);
    }
    expect(normalize(parts.map(textOf).join('\n\n'))).toBe(normalize(long));
  });

  it('renders a plain answer as a post (bold, italics, strike, links) and one with a code block as a card', async () => {
    environment.openai.script.push('**Bold**, _it_, ~~gone~~, see [the docs](https://example.com/docs?a=1&b=2) — 1 < 2 & 3 > 0');
    const plain = events().groupMention('format something', { chatId: 'oc_fmt_1' });
    await post(plain);
    const [answer] = await waitFor(() => (repliesTo(plain.event.message.message_id).length > 0 ? repliesTo(plain.event.message.message_id) : undefined));
    expect(answer!.msgType).toBe('post');
    expect(answer!.content).toEqual({
      zh_cn: {
        content: [
          [
            { tag: 'text', text: 'Bold', style: ['bold'] },
            { tag: 'text', text: ', ' },
            { tag: 'text', text: 'it', style: ['italic'] },
            { tag: 'text', text: ', ' },
            { tag: 'text', text: 'gone', style: ['lineThrough'] },
            { tag: 'text', text: ', see ' },
            { tag: 'a', text: 'the docs', href: 'https://example.com/docs?a=1&b=2' },
            { tag: 'text', text: ' — 1 < 2 & 3 > 0' },
          ],
        ],
      },
    });

    environment.openai.script.push('Compare a < b:\n\n```ts\nconst x = a < b && c;\n```');
    const code = events().groupMention('show me code', { chatId: 'oc_fmt_2' });
    await post(code);
    const [card] = await waitFor(() => (repliesTo(code.event.message.message_id).length > 0 ? repliesTo(code.event.message.message_id) : undefined));
    expect(card!.msgType).toBe('interactive');
    expect(card!.content).toEqual({
      schema: '2.0',
      config: { update_multi: true, width_mode: 'fill' },
      body: { elements: [{ tag: 'markdown', content: 'Compare a &#60; b:\n\n```ts\nconst x = a < b && c;\n```' }] },
    });
  });

  it('`@bot stop` in a group aborts the slow turn, with no late answer', async () => {
    const chatId = 'oc_stop_1';
    environment.openai.script.push(reply.hang());
    const task = events().groupMention('a very long task', { chatId, userOpenId: 'ou_stop_1' });
    await post(task);
    await environment.openai.waitFor(() => callsMentioning('a very long task').length > 0 && environment.openai.inFlight > 0, 10_000);

    const stop = events().groupMention('stop', { chatId, userOpenId: 'ou_stop_1' });
    const stopAt = Date.now();
    expect((await post(stop)).status).toBe(200);
    await environment.openai.waitFor(() => environment.openai.inFlight === 0, 5_000);
    const aborted = callsMentioning('a very long task')[0]!;
    expect(aborted.aborted).toBe(true);
    expect(aborted.endedAt! - stopAt).toBeLessThan(1_000);

    await waitFor(() => repliesTo(stop.event.message.message_id).length > 0, { what: 'the stop notice' });
    expect(repliesTo(stop.event.message.message_id).map(textOf)).toEqual(['Stopped.']);
    await pause(1_500);
    expect(repliesTo(task.event.message.message_id)).toHaveLength(0);
    await waitFor(async () => (await runsOf(sessionKey('group', chatId))).length === 1, { what: 'the cancelled run stored' });
    expect(await runsOf(sessionKey('group', chatId))).toEqual([{ status: 'cancelled' }]);
  });

  it('`/stop` in a DM aborts the slow turn, with no late answer and no card left behind', async () => {
    environment.openai.script.push(reply.hang());
    const task = events().p2pText('another long task', { chatId: 'oc_stop_2', userOpenId: 'ou_stop_2' });
    await post(task);
    await environment.openai.waitFor(() => callsMentioning('another long task').length > 0 && environment.openai.inFlight > 0, 10_000);

    const stop = events().p2pText('/stop', { chatId: 'oc_stop_2', userOpenId: 'ou_stop_2' });
    expect((await post(stop)).status).toBe(200);
    await environment.openai.waitFor(() => environment.openai.inFlight === 0, 5_000);
    expect(callsMentioning('another long task')[0]!.aborted).toBe(true);
    await waitFor(() => repliesTo(stop.event.message.message_id).length > 0, { what: 'the stop notice' });
    expect(repliesTo(stop.event.message.message_id).map(textOf)).toEqual(['Stopped.']);
    await pause(1_500);
    expect(repliesTo(task.event.message.message_id)).toHaveLength(0);
    await waitFor(async () => (await runsOf(sessionKey('dm', 'ou_stop_2'))).length === 1, { what: 'the cancelled run stored' });
    expect(await runsOf(sessionKey('dm', 'ou_stop_2'))).toEqual([{ status: 'cancelled' }]);
  });
});
