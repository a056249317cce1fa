import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  environment = await createE2eEnvironment();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
});

const POLLING = { TELEGRAM_MODE: 'polling', TELEGRAM_WEBHOOK_SECRET: '', CONNECTION_LEASE_MS: '2000' };
const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);

describe('one long-polling connection per bot across processes (CONTRACT §16)', () => {
  it('only the lease holder polls; when it is killed another process takes over and nothing is answered twice', async () => {
    const first = await startServiceProcess(environment.env(POLLING));
    services.push(first);
    await waitFor(() => environment.telegram.callsOf('getUpdates').length > 0, { what: 'the first process polling' });
    const second = await startServiceProcess(environment.env(POLLING));
    services.push(second);

    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(6101, 'before the kill'));
    await waitFor(() => sentTo(6101).length > 0, { what: 'the answer before the kill' });
    // two pollers on one token would end each other's long polls with 409
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(environment.telegram.conflicts).toBe(0);

    await first.kill('SIGKILL');
    const killedAt = Date.now();
    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(6101, 'after the kill'));
    await waitFor(() => sentTo(6101).length > 1, { what: 'the answer from the process that took over', timeoutMs: 20_000 });
    // the lease lasts 2 s; it is tried every half second
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(sentTo(6101).map((call) => call.params.text)).toEqual(['You said: before the kill', 'You said: after the kill']);
  });
});
