import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/core/index.js';
import { startFeishuDouble, type FeishuDouble } from '../../doubles/feishu-double.js';
import { dedupingSink, recordingSink, startChannel } from './channel-fixture.js';
import { startLongConnectionDouble } from './long-connection-double.js';

describe('feishu long connection (FEISHU_MODE=websocket, the SDK WSClient)', () => {
  let double: FeishuDouble;
  let longConnection: Awaited<ReturnType<typeof startLongConnectionDouble>>;
  let channel: Channel | undefined;

  beforeEach(async () => {
    double = await startFeishuDouble();
    longConnection = await startLongConnectionDouble();
    double.setLongConnectionUrl(longConnection.url);
  });
  afterEach(async () => {
    await channel?.stopInbound();
    channel = undefined;
    await longConnection.close();
    await double.close();
  });

  it('connects through /callback/ws/endpoint and feeds events into the same inbound path', async () => {
    channel = await startChannel(double, { mode: 'websocket' });
    const { sink, received } = dedupingSink();
    await channel.startInbound(sink);
    await longConnection.waitForConnection();
    expect(double.callsOf('/callback/ws/endpoint')[0]?.body).toEqual({ AppID: double.appId, AppSecret: double.appSecret });

    const envelope = double.events.groupMention('status please', { messageId: 'om_ws_1' });
    expect(await longConnection.pushEvent(envelope)).toEqual({ code: 200 });
    // a redelivery of the same event is acknowledged but starts no second turn
    expect(await longConnection.pushEvent(envelope)).toEqual({ code: 200 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      conversation: { channel: 'feishu', accountId: double.appId, chatType: 'group', messageId: 'om_ws_1' },
      dedupeKey: `feishu:${double.appId}:oc_group_chat:om_ws_1`,
      text: 'status please',
      addressed: true,
    });
  });

  it('answers 500 on the frame when the queue refuses the message, so Feishu redelivers', async () => {
    channel = await startChannel(double, { mode: 'websocket' });
    const { sink, received } = recordingSink(() => ({ kind: 'rejected', reason: 'redis down' }));
    await channel.startInbound(sink);
    await longConnection.waitForConnection();
    expect(await longConnection.pushEvent(double.events.p2pText('hello'))).toEqual({ code: 500 });
    expect(received).toHaveLength(1);
  });

  it('refuses an app id WSClient would silently ignore', async () => {
    const odd = await startFeishuDouble({ appId: 'not-a-feishu-app-id' });
    try {
      channel = await startChannel(odd, { mode: 'websocket' });
      await expect(channel.startInbound(recordingSink().sink)).rejects.toMatchObject({ name: 'BotError', code: 'config' });
    } finally {
      await odd.close();
    }
  });
});
