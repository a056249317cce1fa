import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';
import { testRedisTarget } from '../support/services.js';
import { FAULT_TIMEOUT_MS, deliverLikeTelegram, waitUntilStored } from '../faults/support/fault-service.js';
import { auditTelegramLedger, expectNothingLostOrDoubled, type AcceptedMessage } from '../faults/support/ledger.js';

/**
 * Issue 24: one master of a three-master Redis Cluster (no replicas, append-only file fsynced on every write, as
 * such a deployment runs) is SIGKILLed while turns run on a gateway and two workers, stays down past the cluster's
 * node timeout (the cluster reports itself down), and comes back on the same port and files as the master of its
 * slots. Every message the gateway accepted before, during and after is answered exactly once and stored once.
 * The cluster is this file's own: killing a master of the shared one would fail the tests running beside it.
 */
let cluster: RedisCluster;
let environment: E2eEnvironment;
const services: ServiceProcess[] = [];

const CLUSTER_NODE_TIMEOUT_MS = 3_000;

beforeAll(async () => {
  cluster = await startRedisCluster({ persistent: true, nodeTimeoutMs: CLUSTER_NODE_TIMEOUT_MS });
  environment = await createE2eEnvironment({ redis: { url: cluster.url, cluster: true } });
  const env = (overrides: Record<string, string>) => environment.env({ TURN_LEASE_MS: '3000', ...overrides });
  services.push(await startServiceProcess(env({ ROLE: 'gateway', OPENAI_API_KEY: '' })));
  services.push(await startServiceProcess(env({ ROLE: 'worker' })), await startServiceProcess(env({ ROLE: 'worker' })));
}, 120_000);

afterAll(async () => {
  if (process.env.FAULT_DEBUG) for (const service of services) console.log(`SERVICE OUTPUT\n${service.output()}`);
  await Promise.all(services.map((service) => service.stop()));
  await environment?.close();
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `cluster_state` as one node sees it. */
async function clusterState(port: number): Promise<string | undefined> {
  const node = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  node.on('error', () => {});
  try {
    await node.connect();
    return /cluster_state:(\w+)/.exec(String(await node.call('CLUSTER', 'INFO')))?.[1];
  } catch {
    return undefined;
  } finally {
    node.disconnect();
  }
}

/** The port of the master that serves the slot of a DM session's keys (they all share the shard's hash tag). */
async function masterPortOf(chatId: number): Promise<number> {
  const sessionKey = `agent:main:telegram:${environment.telegram.botId}:dm:${chatId}`;
  const slot = Number(await environment.redis.call('CLUSTER', 'KEYSLOT', environment.keys.session(sessionKey).pending));
  const ranges = (await environment.redis.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

describe('a Redis Cluster master is killed and restarted while turns are in flight', () => {
  it('answers every accepted message exactly once and stores it once', async () => {
    // the shared cluster of `npm run test:cluster` is not used here, but this file only runs under it
    expect(testRedisTarget().cluster).toBe(true);
    const gateway = services[0]!;
    const beforeChats = Array.from({ length: 12 }, (_, index) => 9601 + index);
    const duringChats = Array.from({ length: 12 }, (_, index) => 9701 + index);
    const afterChats = Array.from({ length: 6 }, (_, index) => 9801 + index);

    // the victim: the master holding the most of the sessions whose turns will be running when it dies
    const ports = await Promise.all(beforeChats.map(masterPortOf));
    const perPort = new Map<number, number>();
    for (const port of ports) perPort.set(port, (perPort.get(port) ?? 0) + 1);
    const [victimPort, victimSessions] = [...perPort.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(victimSessions).toBeGreaterThan(0);
    const victim = cluster.nodes.findIndex((node) => node.port === victimPort);
    expect(victim).toBeGreaterThanOrEqual(0);

    const deliver = (chatId: number, text: string) => deliverLikeTelegram(() => gateway.url, environment.telegram.makeUpdate.privateText(chatId, text), 90_000);
    environment.openai.settings.latencyMs = 2_000;
    const before = await Promise.all(beforeChats.map((chatId) => deliver(chatId, `before the kill ${chatId}`)));
    // every one of them is running a turn (the victim's sessions among them) when the master dies
    await environment.openai.waitFor(() => environment.openai.inFlight >= beforeChats.length, 15_000);

    await cluster.kill(victim, 'SIGKILL');
    // these arrive while the master is away: refused with 503 (and retried, as Telegram does) or taken in
    const during = Promise.all(duringChats.map((chatId) => deliver(chatId, `during the outage ${chatId}`)));
    // past the node timeout: the other masters mark it failed and the cluster reports itself down
    const survivor = cluster.nodes.find((_, index) => index !== victim)!;
    await waitFor(async () => (await clusterState(survivor.port)) === 'fail', { timeoutMs: CLUSTER_NODE_TIMEOUT_MS * 5, what: 'the cluster reporting itself down' });
    await sleep(1_000);
    environment.openai.settings.latencyMs = 200;
    await cluster.restart(victim);
    const accepted: AcceptedMessage[] = [...before, ...(await during)];
    accepted.push(...(await Promise.all(afterChats.map((chatId) => deliver(chatId, `after the restart ${chatId}`)))));

    await waitUntilStored(environment, accepted, environment.telegram.botId, 90_000);
    expectNothingLostOrDoubled(
      await auditTelegramLedger({
        scenario: 'Redis Cluster master SIGKILL, restart',
        sql: environment.sql,
        telegram: environment.telegram,
        botId: environment.telegram.botId,
        accepted,
      }),
    );
    // one message per chat: each chat sees exactly one answer, to its own message
    const visible = (chatId: number, method: string) => environment.telegram.callsOf(method).filter((call) => !call.failed && Number(call.params.chat_id) === chatId);
    const answers = (chatId: number) => visible(chatId, 'sendMessage').length - visible(chatId, 'deleteMessage').length;
    const allChats = [...beforeChats, ...duringChats, ...afterChats];
    expect(Object.fromEntries(allChats.map((chatId) => [chatId, answers(chatId)]))).toEqual(Object.fromEntries(allChats.map((chatId) => [chatId, 1])));
    // and exactly one user message stored per chat, the one sent
    const stored = await environment.storedMessages();
    const userMessages = stored.filter((message) => message.role === 'user');
    expect(userMessages).toHaveLength(allChats.length);
    expect(new Set(userMessages.map((message) => message.session_key)).size).toBe(allChats.length);
  }, FAULT_TIMEOUT_MS);
});
