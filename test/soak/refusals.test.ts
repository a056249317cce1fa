import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { judge, refusalOf, type SoakMessage } from '../../soak/load.js';
import { freePort } from '../support/service-process.js';

/** Issue 53: a message the gateway never took says why its last POST was refused (a dead gateway, a 503, a hang). */
describe('soak verdict: messages never accepted', () => {
  it('names a refused connection, a timeout and an HTTP status', async () => {
    const closedPort = await freePort();
    const refused = await fetch(`http://127.0.0.1:${closedPort}/`).catch((error: unknown) => error);
    const server = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const hung = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(100) }).catch((error: unknown) => error);
    server.closeAllConnections();
    server.close();

    expect(refusalOf(refused)).toBe('ECONNREFUSED');
    expect(refusalOf(hung)).toBe('timeout');
  });

  it('counts them by refusal, apart from the accepted ones', () => {
    const chat = { name: 'telegram-0', platform: 'telegram' as const, message: () => () => ({ path: '/', headers: {}, body: '' }), answers: () => [] };
    const messages: SoakMessage[] = [
      { chat: chat.name, seq: 1, firstPostAt: 0, attempts: 9, lastRefusal: 'ECONNREFUSED' },
      { chat: chat.name, seq: 2, firstPostAt: 0, attempts: 3, lastRefusal: '503' },
      { chat: chat.name, seq: 3, firstPostAt: 0, attempts: 4, lastRefusal: 'ECONNREFUSED' },
    ];

    const verdict = judge([chat], messages);

    expect(verdict).toMatchObject({ messages: 0, neverAccepted: 3, refusals: { ECONNREFUSED: 2, '503': 1 } });
  });
});
