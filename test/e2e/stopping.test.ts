import { describe, expect, it as base } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { childrenOf, endsWithin, isAlive } from '../support/processes.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { startTcpProxy, type TcpProxy } from '../faults/support/tcp-proxy.js';

/**
 * `npm start`'s process with the embedded default (no REDIS_URL: a redis-server from PATH, data under DATA_DIR),
 * stopped the ways an operator stops it: Ctrl-C, `timeout` and supervisors signal the whole process group.
 */
const GRACE_MS = 8_000;

/**
 * One test's own doubles, database, data folder (its own redis-server) and service processes: most tests wait for a
 * turn to run into SHUTDOWN_GRACE_MS, so they run side by side (`it.concurrent`); nothing is shared.
 */
async function createStoppingHarness() {
  const environment: E2eEnvironment = await createE2eEnvironment();
  const services: ServiceProcess[] = [];
  let proxy: TcpProxy | undefined;

  /** Embedded Redis (REDIS_URL unset) under the environment's DATA_DIR, in a process group of its own. */
  async function startEmbedded(overrides: Record<string, string> = {}) {
    const service = await startServiceProcess(
      environment.env({ REDIS_URL: '', SHUTDOWN_GRACE_MS: String(GRACE_MS), TURN_LEASE_MS: '2000', ...overrides }),
      ['start'],
      { ownProcessGroup: true },
    );
    services.push(service);
    const [redis] = await waitFor(() => {
      const found = childrenOf(service.child.pid!).filter((child) => child.command.startsWith('redis-server'));
      return found.length > 0 ? found : undefined;
    }, { what: 'the embedded redis-server' });
    return { service, redisPid: redis!.pid };
  }

  const sentTo = (chatId: number) => environment.telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === chatId && !call.failed);
  const storedRoles = async (chatId: number) => (await environment.storedMessages()).filter((row) => row.session_key.endsWith(`:dm:${chatId}`)).map((row) => row.role);

  return {
    environment,
    startEmbedded,
    sentTo,
    storedRoles,
    startProxy: async (port: number, host: string) => (proxy = await startTcpProxy(port, host)),
    close: async () => {
      for (const service of services.splice(0)) {
        if (service.child.exitCode === null && service.child.signalCode === null) await service.kill('SIGKILL');
      }
      await proxy?.close();
      environment.openai.settings.latencyMs = 0;
      await environment.close();
    },
  };
}

const it = base.extend<{ harness: Awaited<ReturnType<typeof createStoppingHarness>> }>({
  // vitest reads which fixtures a fixture needs from this (empty) object pattern
  harness: async ({}, use) => {
    const harness = await createStoppingHarness();
    try {
      await use(harness);
    } finally {
      await harness.close();
    }
  },
});

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe('stopping the service that runs its own redis-server', { timeout: 90_000 }, () => {
  // one after another with the others: it times an exit that must come within a second
  it('ends at once on a second SIGINT, and answers after a restart the message it had acknowledged', async ({ harness }) => {
    const { environment, startEmbedded, sentTo, storedRoles } = harness;
    const { service, redisPid } = await startEmbedded();
    environment.openai.settings.latencyMs = 60_000;
    const acknowledged = await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(7002, 'do not lose me'));
    expect(acknowledged.status).toBe(200);
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);

    service.signalGroup('SIGINT');
    await waitFor(() => service.output().includes('received SIGINT'), { what: 'the first SIGINT to be taken' });
    service.signalGroup('SIGINT');
    const { value: code, ms } = await timed(service.exited);
    expect(code).not.toBe(0);
    expect(ms).toBeLessThan(1_000);
    expect(await endsWithin(redisPid, 5_000)).toBe(true);

    environment.openai.settings.latencyMs = 0;
    await startEmbedded();
    await waitFor(() => sentTo(7002).length > 0, { timeoutMs: 30_000, what: 'the answer after the restart' });
    expect(sentTo(7002).map((call) => call.params.text)).toEqual(['You said: do not lose me']);
    await waitFor(async () => (await storedRoles(7002)).length === 2, { what: 'the stored turn' });
    expect(await storedRoles(7002)).toEqual(['user', 'assistant']);
  });

  it.concurrent('stops on SIGTERM to its whole process group within SHUTDOWN_GRACE_MS, with exit code 0, letting the running turn finish', async ({ harness }) => {
    const { environment, startEmbedded, sentTo, storedRoles } = harness;
    const { service, redisPid } = await startEmbedded({ TELEGRAM_MODE: 'polling', TELEGRAM_WEBHOOK_SECRET: '' });
    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(7001, 'warm up'));
    await waitFor(() => sentTo(7001).length === 1, { what: 'the first answer' });

    environment.openai.settings.latencyMs = 1_500;
    environment.telegram.pushUpdate(environment.telegram.makeUpdate.privateText(7001, 'finish before you go'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    service.signalGroup('SIGTERM');
    const { value: code, ms } = await timed(service.exited);

    expect({ code, withinGrace: ms < GRACE_MS }).toEqual({ code: 0, withinGrace: true });
    expect(sentTo(7001).map((call) => call.params.text)).toEqual(['You said: warm up', 'You said: finish before you go']);
    expect(await storedRoles(7001)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(isAlive(redisPid)).toBe(false);
    // nothing was given up on: every part stopped in order while its redis-server was still there
    expect(service.output()).not.toMatch(/Redis is away|not stopped within|error while stopping/);
  });

  it.concurrent('takes its redis-server with it when it is killed with SIGKILL', async ({ harness }) => {
    const { startEmbedded } = harness;
    const { service, redisPid } = await startEmbedded();
    await service.kill('SIGKILL');
    expect(await endsWithin(redisPid, 5_000)).toBe(true);
  });

  it.concurrent('stops within SHUTDOWN_GRACE_MS when its redis-server is already gone (a supervisor that signals every process of the unit)', async ({ harness }) => {
    const { startEmbedded } = harness;
    const { service, redisPid } = await startEmbedded();
    process.kill(redisPid, 'SIGKILL');
    expect(await endsWithin(redisPid, 5_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the service notices and starts reconnecting
    service.signalGroup('SIGTERM');
    const { value: code, ms } = await timed(service.exited);
    expect({ code, withinGrace: ms < GRACE_MS }).toEqual({ code: 0, withinGrace: true });
  });

  it.concurrent('stops within SHUTDOWN_GRACE_MS when PostgreSQL is unreachable while a turn runs', async ({ harness }) => {
    const { environment, startEmbedded, startProxy } = harness;
    const target = new URL(environment.databaseUrl);
    const proxy = await startProxy(Number(target.port || 5432), target.hostname);
    target.port = String(proxy.port);
    const { service } = await startEmbedded({ DATABASE_URL: target.toString() });
    environment.openai.settings.latencyMs = 1_000;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(7003, 'the database is away'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    proxy.cut();
    service.signalGroup('SIGTERM');
    const { value: code, ms } = await timed(service.exited);
    expect({ code, withinGrace: ms < GRACE_MS }).toEqual({ code: 0, withinGrace: true });
  });

  it.concurrent('stops within SHUTDOWN_GRACE_MS when it and its redis-server get SIGTERM at once while a turn runs (systemd: every process of the unit)', async ({ harness }) => {
    const { environment, startEmbedded } = harness;
    const { service, redisPid } = await startEmbedded();
    environment.openai.settings.latencyMs = 60_000;
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(7005, 'both at once'));
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    process.kill(redisPid, 'SIGTERM');
    service.signalGroup('SIGTERM');
    const { value: code, ms } = await timed(service.exited);
    expect({ code, withinGrace: ms < GRACE_MS }).toEqual({ code: 0, withinGrace: true });
  });

  it.concurrent('does the same on the embedded PostgreSQL (PGlite): group SIGTERM, exit 0, restart answers what was acknowledged', async ({ harness }) => {
    const { environment, startEmbedded, sentTo } = harness;
    const pglite = { DATABASE_URL: '' };
    const first = await startEmbedded(pglite);
    environment.openai.settings.latencyMs = 60_000;
    expect((await postTelegramUpdate(first.service.url, environment.telegram.makeUpdate.privateText(7004, 'kept in the data folder'))).status).toBe(200);
    await environment.openai.waitFor(() => environment.openai.inFlight > 0, 10_000);
    first.service.signalGroup('SIGTERM');
    const { value: code, ms } = await timed(first.service.exited);
    expect({ code, withinGrace: ms < GRACE_MS }).toEqual({ code: 0, withinGrace: true });
    expect(isAlive(first.redisPid)).toBe(false);

    environment.openai.settings.latencyMs = 0;
    const second = await startEmbedded(pglite);
    await waitFor(() => sentTo(7004).length > 0, { timeoutMs: 30_000, what: 'the answer after the restart' });
    expect(sentTo(7004).map((call) => call.params.text)).toEqual(['You said: kept in the data folder']);
    second.service.signalGroup('SIGTERM');
    expect(await second.service.exited).toBe(0);
  });
});
