import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StallProxy } from '../../soak/stall-proxy.js';

/** The soak's bad network (issue 53): traffic held for a while then delivered in order, and connections reset half-way. */
describe('StallProxy', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** An echo server behind a proxy, and a client connected through it. */
  async function echoThroughProxy(): Promise<{ proxy: StallProxy; client: Socket; received: () => string }> {
    const server: Server = createServer((socket) => {
      // the proxy's resets reach the echo side as errors
      socket.on('error', () => {});
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    const proxy = await new StallProxy({ host: '127.0.0.1', port: typeof address === 'object' && address ? address.port : 0 }).start();
    cleanup.push(() => proxy.stop());
    const client = connect({ host: '127.0.0.1', port: proxy.port });
    client.on('error', () => {});
    cleanup.push(() => void client.destroy());
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    let text = '';
    client.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return { proxy, client, received: () => text };
  }

  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };

  it('passes traffic both ways', async () => {
    const { client, received } = await echoThroughProxy();
    client.write('hello');
    await until(() => received() === 'hello');
  });

  it('holds everything while stalled and then delivers it in order', async () => {
    const { proxy, client, received } = await echoThroughProxy();
    let stallOver = false;
    const seenDuringStall: string[] = [];
    client.on('data', () => !stallOver && seenDuringStall.push(received()));
    const stalled = proxy.stall(300).then(() => (stallOver = true));
    for (const part of ['one ', 'two ', 'three']) client.write(part);
    await stalled;
    await until(() => received() === 'one two three');
    expect(seenDuringStall).toEqual([]);
    // and a connection opened during a stall waits for it too
    const late = proxy.stall(200).then(() => (stallOver = true));
    stallOver = false;
    const second = connect({ host: '127.0.0.1', port: proxy.port });
    second.on('error', () => {});
    cleanup.push(() => void second.destroy());
    let secondText = '';
    let secondEarly = false;
    second.on('data', (chunk: Buffer) => ((secondText += chunk.toString()), (secondEarly ||= !stallOver)));
    second.write('late');
    await late;
    await until(() => secondText === 'late');
    expect(secondEarly).toBe(false);
  });

  it('resets every open connection when it drops them', async () => {
    const { proxy, client } = await echoThroughProxy();
    const closed = new Promise<boolean>((resolve) => client.once('close', (hadError) => resolve(hadError)));
    expect(proxy.drop()).toBe(1);
    // a reset, not a clean end
    expect(await closed).toBe(true);
  });
});
