import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_GREETING, DEFAULT_PROMPTS } from '../../../channels/slack/assistant-threads.js';
import type { Channel } from '../../../src/core/index.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { memoryState, post, recordingSink, startSlackChannel, waitFor } from './channel-fixture.js';

const EVENTS = '/webhooks/slack/events';
const USER = 'U0ALICE01';
const DM = 'D0ALICE01';

let double: SlackDouble;
let channel: Channel;

beforeEach(async () => {
  double = await startSlackDouble();
});

afterEach(async () => {
  await channel?.stopInbound();
  await double.close();
});

const greetingsIn = (threadTs: string) => double.callsOf('chat.postMessage').filter((call) => call.params.channel === DM && call.params.thread_ts === threadTs && !call.failed);

describe('Slack assistant threads (the AI app surface)', () => {
  it('greets a new thread with the suggested prompts once, however often Slack delivers its start, and gives its messages the viewed channel', async () => {
    const state = memoryState();
    channel = await startSlackChannel(double, { state });
    const { sink, received } = recordingSink();
    double.setChannelName('C0GENERAL', 'general');
    const started = double.makeEvent.assistantThreadStarted(USER, 'C0GENERAL');
    const threadTs = started.event.assistant_thread.thread_ts;

    const response = await post(channel, sink, double.signedRequest(EVENTS, started));
    expect(response.status).toBe(200);
    // the redelivery (another process, or Slack's retry) greets nobody again
    expect((await post(channel, sink, double.signedRequest(EVENTS, started, { retryNum: 1 }))).status).toBe(200);
    await waitFor(() => double.suggestedPrompts.has(`${DM}:${threadTs}`));
    await channel.stopInbound();
    expect(greetingsIn(threadTs).map((call) => call.params.text)).toEqual([DEFAULT_GREETING]);
    expect(double.suggestedPrompts.get(`${DM}:${threadTs}`)).toEqual(DEFAULT_PROMPTS);
    expect(received).toEqual([]);

    await post(channel, sink, double.signedRequest(EVENTS, double.makeEvent.assistantMessage(USER, threadTs, 'what is going on here?')));
    expect(received[0]).toMatchObject({
      conversation: { chatId: DM, chatType: 'dm', threadId: threadTs },
      text: 'what is going on here?',
      titled: true,
      contextNote: 'The user is viewing the Slack channel #general (C0GENERAL) beside this conversation',
    });

    // the person moves on: the next message names the new channel
    await post(channel, sink, double.signedRequest(EVENTS, double.makeEvent.assistantContextChanged(USER, threadTs, 'C0RANDOM')));
    double.setChannelName('C0RANDOM', 'random');
    await post(channel, sink, double.signedRequest(EVENTS, double.makeEvent.assistantMessage(USER, threadTs, 'and now?')));
    expect(received[1]?.contextNote).toBe('The user is viewing the Slack channel #random (C0RANDOM) beside this conversation');
  });

  it('opens with the configured greeting, and without prompts when the list is empty; a thread opened from no channel has no note', async () => {
    channel = await startSlackChannel(double, { assistant: { greeting: 'Welcome to **Ops**.', prompts: [] } });
    const { sink, received } = recordingSink();
    const started = double.makeEvent.assistantThreadStarted(USER);
    const threadTs = started.event.assistant_thread.thread_ts;
    await post(channel, sink, double.signedRequest(EVENTS, started));
    await waitFor(() => greetingsIn(threadTs).length > 0);
    await channel.stopInbound();
    expect(greetingsIn(threadTs)[0]!.params.text).toBe('Welcome to *Ops*.');
    expect(double.callsOf('assistant.threads.setSuggestedPrompts')).toEqual([]);

    await post(channel, sink, double.signedRequest(EVENTS, double.makeEvent.assistantMessage(USER, threadTs, 'hello')));
    expect(received[0]?.titled).toBe(true);
    expect(received[0]?.contextNote).toBeUndefined();
  });

  it('greets only someone a DM from whom would be admitted (DM_POLICY, allowlist, pairing)', async () => {
    channel = await startSlackChannel(double);
    const asked: string[] = [];
    channel.onDirectAccessCheck?.(async (userId) => {
      asked.push(userId);
      return userId === USER;
    });
    const { sink } = recordingSink();
    const stranger = double.makeEvent.assistantThreadStarted('U0STRANGER');
    const welcome = double.makeEvent.assistantThreadStarted(USER);
    expect((await post(channel, sink, double.signedRequest(EVENTS, stranger))).status).toBe(200);
    expect((await post(channel, sink, double.signedRequest(EVENTS, welcome))).status).toBe(200);
    await waitFor(() => double.suggestedPrompts.has(`${DM}:${welcome.event.assistant_thread.thread_ts}`));
    await channel.stopInbound();
    expect(asked).toEqual(['U0STRANGER', USER]);
    expect(double.callsOf('chat.postMessage').filter((call) => call.params.thread_ts === stranger.event.assistant_thread.thread_ts)).toEqual([]);
    expect(double.suggestedPrompts.has(`${stranger.event.assistant_thread.channel_id}:${stranger.event.assistant_thread.thread_ts}`)).toBe(false);
    expect(greetingsIn(welcome.event.assistant_thread.thread_ts).map((call) => call.params.text)).toEqual([DEFAULT_GREETING]);
  });

  it('configured prompts are sent as given', async () => {
    const prompts = [{ title: 'Summarize', message: 'Summarize the last document.' }];
    channel = await startSlackChannel(double, { assistant: { prompts } });
    const started = double.makeEvent.assistantThreadStarted(USER, 'C0GENERAL');
    await post(channel, recordingSink().sink, double.signedRequest(EVENTS, started));
    await waitFor(() => double.suggestedPrompts.size > 0);
    expect(double.suggestedPrompts.get(`${DM}:${started.event.assistant_thread.thread_ts}`)).toEqual(prompts);
    expect(greetingsIn(started.event.assistant_thread.thread_ts)[0]!.params.text).toBe(DEFAULT_GREETING);
  });

  it('refuses an assistant event without its thread (400), and a context that cannot be kept asks Slack to retry (503)', async () => {
    const state = memoryState();
    channel = await startSlackChannel(double, { state });
    const { sink } = recordingSink();
    const started = double.makeEvent.assistantThreadStarted(USER, 'C0GENERAL');
    const broken = { ...started, event: { ...started.event, assistant_thread: { ...started.event.assistant_thread, thread_ts: 17 } } };
    expect((await post(channel, sink, double.signedRequest(EVENTS, broken))).status).toBe(400);
    state.keepText = async () => {
      throw new Error('redis down');
    };
    expect((await post(channel, sink, double.signedRequest(EVENTS, started))).status).toBe(503);
    expect(greetingsIn(started.event.assistant_thread.thread_ts)).toEqual([]);
  });

  it('sets an assistant thread\u2019s title; a plain DM or a refusal sets nothing and fails nothing', async () => {
    channel = await startSlackChannel(double);
    const thread = { channel: 'slack' as const, accountId: double.teamId, chatId: DM, chatType: 'dm' as const, threadId: '1700000000.000001', messageId: '1700000000.000002' };
    await channel.setConversationTitle!(thread, 'How do I rotate my keys?');
    expect(double.threadTitles.get(`${DM}:1700000000.000001`)).toBe('How do I rotate my keys?');
    await channel.setConversationTitle!({ ...thread, threadId: undefined }, 'no thread');
    double.setAssistantThreads(false);
    await channel.setConversationTitle!({ ...thread, threadId: '1700000000.000009' }, 'refused');
    expect([...double.threadTitles.values()]).toEqual(['How do I rotate my keys?']);
  });
});
