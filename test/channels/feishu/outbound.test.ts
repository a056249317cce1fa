import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEISHU_EVENTS_PATH } from '../../../channels/feishu/index.js';
import { renderAnswer } from '../../../channels/feishu/format.js';
import { BotError, type Channel, type ConversationRef } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { memoryState, recordingSink, routeAt, startChannel, visibleText, waitFor } from './channel-fixture.js';

const dm = (appId: string): ConversationRef => ({ channel: 'feishu', accountId: appId, chatId: 'oc_p2p_chat', chatType: 'dm', messageId: 'om_question' });
const group = (appId: string): ConversationRef => ({ channel: 'feishu', accountId: appId, chatId: 'oc_group_chat', chatType: 'group', messageId: 'om_group_q' });

function longAnswer(): string {
  return Array.from({ length: 20 }, (_, index) => `## Part ${index}\n\n${`Some text about part ${index}. `.repeat(12)}\n\n\`\`\`python\nprint(${index})\n\`\`\``).join('\n\n');
}

describe('feishu outbound', () => {
  let double: FeishuDouble;
  let channel: Channel;

  beforeEach(async () => {
    double = await startFeishuDouble();
    channel = await startChannel(double);
  });
  afterEach(() => double.close());

  it('answers with the reply API on the triggering message, as a post for a plain answer', async () => {
    const receipt = await channel.send(dm(double.appId), 'Hello **world**');
    const [reply] = double.callsOf('/reply');
    expect(reply?.path).toBe('/open-apis/im/v1/messages/om_question/reply');
    expect(reply?.body).toMatchObject({ msg_type: 'post' });
    expect(typeof reply?.body.uuid).toBe('string');
    expect(JSON.parse(reply?.body.content)).toEqual({ zh_cn: { content: [[{ tag: 'text', text: 'Hello ' }, { tag: 'text', text: 'world', style: ['bold'] }]] } });
    expect(receipt.messageIds).toEqual(['om_bot_1']);
    expect(double.messages.get('om_bot_1')?.parentId).toBe('om_question');
  });

  it('answers with a card when the answer has a code block or a table', async () => {
    await channel.send(group(double.appId), 'Run:\n\n```sh\nnpm test\n```');
    const [reply] = double.callsOf('/reply');
    expect(reply?.body.msg_type).toBe('interactive');
    expect(JSON.parse(reply?.body.content).body.elements[0].content).toBe('Run:\n\n```sh\nnpm test\n```');
  });

  it('splits a long answer into several replies to the same message, in order, nothing lost', async () => {
    const markdown = longAnswer();
    const receipt = await channel.send(group(double.appId), markdown);
    const replies = double.callsOf('/reply');
    expect(replies.length).toBeGreaterThan(1);
    expect(replies.every((call) => call.path === '/open-apis/im/v1/messages/om_group_q/reply' && call.code === 0)).toBe(true);
    expect(receipt.messageIds).toEqual(replies.map((_, index) => `om_bot_${index + 1}`));
    const shown = receipt.messageIds.map((id) => {
      const stored = double.messages.get(id);
      return visibleText(stored?.msgType ?? '', stored?.content);
    });
    expect(shown.join('\n').replace(/\s+/g, '')).toBe(markdown.replace(/\s+/g, ''));
  });

  it('uses one tenant token for many sends (the SDK caches it)', async () => {
    const to = dm(double.appId);
    await channel.send(to, 'one');
    await channel.sendNotice(to, 'two');
    await channel.send(to, 'three');
    await channel.startWorking(to).stop();
    expect(double.tokenRequests).toBe(1);
    expect(double.calls.every((call) => call.code === 0)).toBe(true);
  });

  it('has the SDK renew the token before it expires', async () => {
    // the SDK keeps a token until 180 s before its end, so one of 181 s is renewed after about a second
    const shortLived = await startFeishuDouble({ tokenExpireSeconds: 181 });
    try {
      const renewing = await startChannel(shortLived);
      await renewing.send(dm(shortLived.appId), 'before');
      expect(shortLived.tokenRequests).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await renewing.send(dm(shortLived.appId), 'after');
      expect(shortLived.tokenRequests).toBe(2);
      expect(shortLived.calls.every((call) => call.code === 0)).toBe(true);
    } finally {
      await shortLived.close();
    }
  });

  it('sends notices as plain text replies', async () => {
    await channel.sendNotice(dm(double.appId), 'Stopped. **not bold**');
    const [reply] = double.callsOf('/reply');
    expect(reply?.body.msg_type).toBe('text');
    expect(JSON.parse(reply?.body.content)).toEqual({ text: 'Stopped. **not bold**' });
  });

  it('sends nothing for an empty answer', async () => {
    expect(await channel.send(dm(double.appId), ' \n ')).toEqual({ messageIds: [] });
    expect(double.callsOf('/reply')).toHaveLength(0);
  });

  it('waits out a rate limit (x-ogw-ratelimit-reset) and sends once', async () => {
    double.failNext('/reply', { status: 429, code: 99991400, resetSeconds: 1 });
    const receipt = await channel.send(dm(double.appId), 'patience');
    const [first, second] = double.callsOf('/reply');
    expect(first?.status).toBe(429);
    expect(second?.code).toBe(0);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(receipt.messageIds).toHaveLength(1);
    expect(double.messages.size).toBe(1);
  });

  it('retries the older 400-style rate limit and a 5xx, each with backoff', async () => {
    double.failNext('/reply', { status: 400, code: 99991400 });
    double.failNext('/reply', { status: 502, code: 1, msg: 'bad gateway' });
    const receipt = await channel.send(dm(double.appId), 'eventually');
    expect(double.callsOf('/reply').map((call) => call.status)).toEqual([400, 502, 200]);
    expect(receipt.messageIds).toHaveLength(1);
  });

  it('gives up at once on a rate-limit window beyond the bound, as a retryable platform error', async () => {
    double.failNext('/reply', { status: 429, code: 99991400, resetSeconds: 60 });
    const error = await channel.send(dm(double.appId), 'x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BotError);
    expect(error).toMatchObject({ code: 'platform', isRetryable: true, retryAfterMs: 60_000 });
    expect(double.callsOf('/reply')).toHaveLength(1);
  });

  it('throws a non-retryable platform error for a refused message (e.g. bot removed from the chat)', async () => {
    double.failNext('/reply', { status: 400, code: 230002, msg: 'Bot/User can NOT be out of the chat.' });
    const error = await channel.send(group(double.appId), 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: false });
    expect(String((error as Error).message)).toContain('230002');
    expect(double.callsOf('/reply')).toHaveLength(1);
  });

  it('gives up on network failures after a bounded number of attempts', async () => {
    await double.close();
    const started = Date.now();
    const error = await channel.send(dm(double.appId), 'nobody listens').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'BotError', code: 'platform', isRetryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('renders what renderAnswer promises', async () => {
    const markdown = 'A table:\n\n| a | b |\n|---|---|\n| 1 | 2 |';
    await channel.send(dm(double.appId), markdown);
    expect(double.callsOf('/reply').map((call) => ({ msgType: call.body.msg_type, content: call.body.content }))).toEqual(renderAnswer(markdown));
  });
});

describe('feishu typing reaction', () => {
  it('adds a Typing reaction on the triggering message and removes it at stop', async () => {
    const double = await startFeishuDouble();
    try {
      const channel = await startChannel(double);
      const indicator = channel.startWorking(dm(double.appId));
      await waitFor(() => double.reactions.size === 1);
      const [added] = double.callsOf('POST /open-apis/im/v1/messages/om_question/reactions');
      expect(added?.body).toEqual({ reaction_type: { emoji_type: 'Typing' } });
      await indicator.stop();
      await indicator.stop();
      const removals = double.callsOf('DELETE /open-apis/im/v1/messages/om_question/reactions/');
      expect(removals).toHaveLength(1);
      expect(double.reactions.size).toBe(0);
    } finally {
      await double.close();
    }
  });

  it('only logs a failing reaction', async () => {
    const double = await startFeishuDouble();
    try {
      const channel = await startChannel(double);
      double.failNext('/reactions', { status: 400, code: 231001, msg: 'reaction type is invalid' });
      await channel.startWorking(dm(double.appId)).stop();
      expect(double.callsOf('DELETE')).toHaveLength(0);
    } finally {
      await double.close();
    }
  });
});

describe('createFeishuChannel', () => {
  it('refuses to start with an app secret Feishu refuses, as a configuration error, without loading anything more', async () => {
    const double = await startFeishuDouble();
    try {
      await expect(startChannel(double, { appSecret: 'not-the-secret' })).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('FEISHU_APP_SECRET were refused') });
      expect(double.callsOf('/bot/v3/info')).toHaveLength(0);
    } finally {
      await double.close();
    }
  });

  it('learns the bot open_id once and uses the app id as account id', async () => {
    const double = await startFeishuDouble({ botName: 'Atlas' });
    try {
      const channel = await startChannel(double);
      expect(channel.name).toBe('feishu');
      expect(channel.accountId).toBe(double.appId);
      expect(double.callsOf('/bot/v3/info')).toHaveLength(1);
      expect(channel.promptSection()).toContain('"Atlas"');
    } finally {
      await double.close();
    }
  });

  it('reports a refused app secret as a configuration error, without the secret', async () => {
    const double = await startFeishuDouble();
    try {
      const error = await startChannel(double, { appSecret: 'wrong-secret-value' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'BotError', code: 'config' });
      expect(String((error as Error).message)).not.toContain('wrong-secret-value');
    } finally {
      await double.close();
    }
  });

  it('counts a group reply to one of the bot answers as addressing the bot', async () => {
    const double = await startFeishuDouble();
    try {
      const state = memoryState();
      const channel = await startChannel(double, { state });
      const { messageIds } = await channel.send(group(double.appId), 'an answer');
      const { sink, received } = recordingSink();
      const route = routeAt(channel, sink, FEISHU_EVENTS_PATH);
      await route.handle(double.delivery(double.events.groupText('why?', { parentId: messageIds[0] })));
      await route.handle(double.delivery(double.events.groupText('unrelated', { parentId: 'om_someone_else' })));
      expect(received.map((message) => [message.text, message.addressed])).toEqual([
        ['why?', true],
        ['unrelated', false],
      ]);
    } finally {
      await double.close();
    }
  });
});
