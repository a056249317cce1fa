import { Redis } from 'ioredis';
import type { RedisCluster } from './redis-cluster.js';

/** One node as `CLUSTER NODES` on a live node describes it. */
export interface ClusterNodeView {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** The master's id, for a replica. */
  masterId: string | undefined;
  /** `fail` / `fail?` flags: the cluster takes it for down. */
  failing: boolean;
  /** Slot ranges it serves, `[from, to]`, for a master. */
  slots: Array<[number, number]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A short-lived direct connection to one node (no cluster redirections): the operator's `redis-cli -p`. */
async function withNode<T>(port: number, action: (node: Redis) => Promise<T>): Promise<T> {
  const node = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
  node.on('error', () => {});
  try {
    await node.connect();
    return await action(node);
  } finally {
    node.disconnect();
  }
}

/** `CLUSTER NODES` as seen from the first running node that answers. */
export async function clusterNodes(cluster: RedisCluster): Promise<ClusterNodeView[]> {
  for (const node of cluster.nodes.filter((candidate) => candidate.pid !== undefined)) {
    try {
      const text = await withNode(node.port, async (client) => String(await client.call('CLUSTER', 'NODES')));
      return text
        .trim()
        .split('\n')
        .map((line) => {
          // <id> <ip:port@bus> <flags> <master> <ping-sent> <pong-recv> <epoch> <link-state> <slot> <slot> ...
          const [id, address, flags, master, , , , , ...slots] = line.split(' ');
          return {
            id: id!,
            port: Number(/:(\d+)@/.exec(address!)?.[1]),
            role: flags!.includes('master') ? ('master' as const) : ('replica' as const),
            masterId: master === '-' ? undefined : master,
            failing: /\bfail\??\b/.test(flags!),
            slots: slots.filter((slot) => !slot.startsWith('[')).map((slot) => slot.split('-').map(Number)).map(([from, to]) => [from!, to ?? from!] as [number, number]),
          };
        });
    } catch {
      // that node is on its way down: ask the next
    }
  }
  throw new Error('no node of the cluster answers CLUSTER NODES');
}

/** The index (in `cluster.nodes`) of the node on `port`. */
export function nodeIndex(cluster: RedisCluster, port: number): number {
  const index = cluster.nodes.findIndex((node) => node.port === port);
  if (index < 0) throw new Error(`no node of this cluster listens on ${port}`);
  return index;
}

/** The master that serves `slot` now, and a healthy replica of it. */
export async function shardOf(cluster: RedisCluster, slot: number): Promise<{ master: ClusterNodeView; replica: ClusterNodeView | undefined }> {
  const nodes = await clusterNodes(cluster);
  const master = nodes.find((node) => node.role === 'master' && !node.failing && node.slots.some(([from, to]) => slot >= from && slot <= to));
  if (!master) throw new Error(`no master serves slot ${slot}`);
  return { master, replica: nodes.find((node) => node.role === 'replica' && node.masterId === master.id && !node.failing) };
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * A master crash the cluster heals by itself: the master serving `slot` is SIGKILLed, its replica is promoted
 * once the others mark it failed (past `cluster-node-timeout`), and after `downForMs` more the old master is
 * started again on its port and files, where it learns of the newer epoch and rejoins as the new master's replica.
 * Resolves when every node is back and the cluster is healthy; returns the ports before and after.
 */
export async function killMasterForFailover(cluster: RedisCluster, slot: number, downForMs: number): Promise<{ killed: number; promoted: number }> {
  const { master, replica } = await shardOf(cluster, slot);
  if (!replica) throw new Error(`the master on ${master.port} has no healthy replica to promote`);
  const victim = nodeIndex(cluster, master.port);
  await cluster.kill(victim, 'SIGKILL');
  await waitUntil(`the replica on ${replica.port} promoted`, 60_000, async () => (await clusterNodes(cluster)).some((node) => node.port === replica.port && node.role === 'master'));
  await cluster.waitUntilHealthy(60_000, false);
  await sleep(downForMs);
  await cluster.restart(victim);
  await waitUntil(`the old master on ${master.port} back as a replica`, 60_000, async () => (await clusterNodes(cluster)).some((node) => node.port === master.port && node.role === 'replica' && !node.failing));
  return { killed: master.port, promoted: replica.port };
}

/**
 * The planned failover an operator runs before maintenance: `CLUSTER FAILOVER` on a replica of the (healthy) master
 * serving `slot`. The master stops taking writes, the replica catches up with it, and they swap roles without
 * losing an acknowledged write. Resolves once the replica is the master and the cluster is healthy.
 */
export async function plannedFailover(cluster: RedisCluster, slot: number): Promise<{ demoted: number; promoted: number }> {
  const { master, replica } = await shardOf(cluster, slot);
  if (!replica) throw new Error(`the master on ${master.port} has no healthy replica`);
  const swapped = async () => {
    const nodes = await clusterNodes(cluster);
    return nodes.some((node) => node.port === replica.port && node.role === 'master') && nodes.some((node) => node.port === master.port && node.role === 'replica');
  };
  // a replica still syncing (a master just restarted as one) lets a manual failover time out: wait for its link,
  // and ask again when one did not go through
  await waitUntil(`the replica on ${replica.port} in sync`, 60_000, async () =>
    /master_link_status:up/.test(await withNode(replica.port, async (node) => String(await node.call('INFO', 'replication')))),
  );
  await waitUntil(`the replica on ${replica.port} promoted by CLUSTER FAILOVER`, 60_000, async () => {
    if (await swapped()) return true;
    await withNode(replica.port, (node) => node.call('CLUSTER', 'FAILOVER'));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await swapped()) return true;
      await sleep(200);
    }
    return false;
  });
  await cluster.waitUntilHealthy(30_000);
  return { demoted: master.port, promoted: replica.port };
}

/** The slot that holds the most keys now, over every master (`CLUSTER COUNTKEYSINSLOT` of each slot it serves). */
export async function busiestSlot(cluster: RedisCluster): Promise<{ slot: number; keys: number }> {
  let best = { slot: 0, keys: -1 };
  for (const master of (await clusterNodes(cluster)).filter((node) => node.role === 'master' && !node.failing)) {
    const slots = master.slots.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, offset) => from + offset));
    const counts = await withNode(master.port, async (node) => {
      const pipeline = node.pipeline();
      for (const slot of slots) pipeline.call('CLUSTER', 'COUNTKEYSINSLOT', slot);
      return ((await pipeline.exec()) ?? []).map(([, count]) => Number(count));
    });
    counts.forEach((keys, index) => {
      if (keys > best.keys) best = { slot: slots[index]!, keys };
    });
  }
  return best;
}

/**
 * Moves `slot` from the master serving it to another master while clients keep using it, the way a resharding
 * operator (or `redis-cli --cluster reshard`) does: `CLUSTER SETSLOT … IMPORTING` on the target, `… MIGRATING` on
 * the source, then `MIGRATE` of its keys `batch` at a time with `pauseMs` between batches (so clients meet the
 * half-moved slot: `ASK` for keys already moved, `TRYAGAIN` for a script whose keys are split), and last
 * `CLUSTER SETSLOT … NODE` on both and every other master (`MOVED` from then on). Returns what moved where.
 */
export async function migrateSlot(cluster: RedisCluster, slot: number, options: { batch?: number; pauseMs?: number } = {}): Promise<{ from: number; to: number; keys: number }> {
  const nodes = await clusterNodes(cluster);
  const { master: source } = await shardOf(cluster, slot);
  const masters = nodes.filter((node) => node.role === 'master' && !node.failing && node.slots.length > 0);
  const target = masters.filter((node) => node.id !== source.id)[Math.floor(Math.random() * (masters.length - 1))]!;
  await withNode(target.port, (node) => node.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id));
  await withNode(source.port, (node) => node.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id));
  let moved = 0;
  await withNode(source.port, async (node) => {
    for (;;) {
      const keys = (await node.call('CLUSTER', 'GETKEYSINSLOT', slot, options.batch ?? 5)) as string[];
      if (keys.length === 0) break;
      await node.call('MIGRATE', '127.0.0.1', target.port, '', 0, 10_000, 'KEYS', ...keys);
      moved += keys.length;
      await sleep(options.pauseMs ?? 50);
    }
  });
  // the target first, so that the slot is never left without an owner (the order the Redis manual gives)
  await withNode(target.port, (node) => node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id));
  await withNode(source.port, (node) => node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id));
  for (const other of masters.filter((node) => node.id !== source.id && node.id !== target.id)) {
    await withNode(other.port, (node) => node.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id));
  }
  await cluster.waitUntilHealthy(30_000);
  return { from: source.port, to: target.port, keys: moved };
}
