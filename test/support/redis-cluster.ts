import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './service-process.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  host: '127.0.0.1';
  port: number;
  /** The cluster bus port (set explicitly, so that it need not be port + 10000). */
  busPort: number;
  url: string;
  /** The redis-server process, while it runs. */
  pid: number | undefined;
}

export interface RedisCluster {
  nodes: readonly RedisClusterNode[];
  /** Every node's URL (masters first, then replicas), in REDIS_URL form (CONTRACT §16): `redis://127.0.0.1:p1,redis://127.0.0.1:p2,…`. */
  url: string;
  /** The pids of the running redis-server processes (CPU and memory probes). */
  pids(): number[];
  /** Signals one node's redis-server (SIGKILL: a crash) and waits for it to exit; its slots are down until `restart`. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts a killed node again on the same ports, directory and cluster config file, so it rejoins as the master of
   * its slots, then waits until the cluster is healthy. Its data is gone unless the cluster was started `persistent`.
   */
  restart(index: number): Promise<void>;
  /**
   * Waits until every running node reports `cluster_state:ok`, all 16384 slots served and every node known (and,
   * unless `allRunning` is false, every node running: with replicas a master's slots are served again once its
   * replica took over, before the old master is back).
   */
  waitUntilHealthy(timeoutMs?: number, allRunning?: boolean): Promise<void>;
  /** Stops every node and removes its files. */
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** How many masters (default 3, the fewest `redis-cli --cluster create` accepts without replicas). */
  masters?: number;
  /** `cluster-node-timeout`: how soon a node that stopped answering is marked failing (default 3000 ms; Redis's own default is 15000). */
  nodeTimeoutMs?: number;
  /** How long to wait for the cluster to form (default 30 s). */
  timeoutMs?: number;
  /**
   * Each node keeps an append-only file fsynced on every write (`appendfsync always`, as a deployment without
   * replicas runs it), so a master killed with SIGKILL comes back with every write it acknowledged. Default off.
   */
  persistent?: boolean;
  /**
   * Replicas per master (default 0). With replicas, `redis-cli --cluster create` makes the first `masters` nodes
   * masters and the rest their replicas; a master killed for longer than the node timeout is replaced by its
   * replica, and restarted it rejoins as a replica (test/support/redis-cluster-operations.ts).
   */
  replicas?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two distinct free ports: the client port and the cluster bus port of one node. */
async function portPair(taken: Set<number>): Promise<[number, number]> {
  const pick = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return [await pick(), await pick()];
}

/** Asks one node for CLUSTER INFO; undefined when it does not answer. */
async function clusterInfo(port: number): Promise<Record<string, string> | undefined> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const text = String(await client.call('CLUSTER', 'INFO'));
    return Object.fromEntries(text.split(/\r?\n/).flatMap((line) => (line.includes(':') ? [line.split(':', 2) as [string, string]] : [])));
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** Waits until `CLUSTER NODES` on `port` lists `count` replicas (`redis-cli --cluster create` attaches them after the slots). */
/**
 * Until every replica is attached and in sync: `count` replicas online in their masters' INFO replication (a
 * replica CLUSTER NODES already names may still be loading its first copy, and a WAIT would find none).
 */
async function waitForReplicas(ports: number[], count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const replication = async (port: number) => {
    const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    client.on('error', () => {});
    return client.connect().then(() => client.info('replication')).then(String, () => '').finally(() => client.disconnect());
  };
  for (;;) {
    const infos = await Promise.all(ports.map(replication));
    const online = infos.join('\n').split('\n').filter((line) => /^slave\d+:.*state=online/.test(line)).length;
    if (online >= count) return;
    if (Date.now() > deadline) throw new Error(`the Redis Cluster's ${count} replicas were not in sync within ${timeoutMs} ms (${online} online)`);
    await sleep(100);
  }
}

/**
 * A local Redis Cluster of `masters` masters (and `replicas` replicas of each), for tests, the benchmark and the soak: each node is a
 * `redis-server --cluster-enabled yes` on free ports with no persistence, joined by `redis-cli --cluster create`.
 * Both programs come from Debian's `redis-server` package. Nodes still running when the process exits are killed.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  if (masters < 3) throw new Error('a Redis Cluster needs at least 3 masters');
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 3_000;
  const replicas = options.replicas ?? 0;
  const total = masters * (1 + replicas);
  const directory = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const taken = new Set<number>();
  const nodes: RedisClusterNode[] = [];
  const children: Array<ChildProcess | undefined> = [];
  for (let index = 0; index < total; index++) {
    const [port, busPort] = await portPair(taken);
    nodes.push({ host: '127.0.0.1', port, busPort, url: `redis://127.0.0.1:${port}`, pid: undefined });
  }
  const killAll = () => {
    for (const child of children) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  async function launch(index: number): Promise<void> {
    const node = nodes[index]!;
    // a directory per node: its cluster config file and, when persistent, its append-only files
    const nodeDirectory = join(directory, String(node.port));
    mkdirSync(nodeDirectory, { recursive: true });
    const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    // prettier-ignore
    const child = spawn('redis-server', [
      '--port', String(node.port), '--bind', '127.0.0.1', '--dir', nodeDirectory,
      '--cluster-enabled', 'yes', '--cluster-port', String(node.busPort), '--cluster-config-file', `nodes-${node.port}.conf`,
      '--cluster-node-timeout', String(nodeTimeoutMs), '--save', '', ...persistence,
      // a replica takes over however long ago it last heard from its master (a loaded machine delays that)
      ...(replicas > 0 ? ['--cluster-replica-validity-factor', '0'] : []),
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    children[index] = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onExit = (code: number | null) => reject(new Error(`redis-server on port ${node.port} exited with ${code}: ${output.slice(-1_000)}`));
      child.once('exit', onExit);
      child.once('error', reject);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          child.off('exit', onExit);
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });
    node.pid = child.pid;
    child.once('exit', () => {
      if (children[index] === child) node.pid = undefined;
    });
  }

  async function halt(index: number, signal: NodeJS.Signals): Promise<void> {
    const child = children[index];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  async function waitUntilHealthy(timeoutMs = options.timeoutMs ?? 30_000, allRunning = true): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: string = 'no answer';
    for (;;) {
      const running = nodes.filter((node) => node.pid !== undefined);
      const infos = await Promise.all(running.map((node) => clusterInfo(node.port)));
      const healthy = infos.every(
        (info) => info?.cluster_state === 'ok' && info.cluster_slots_ok === '16384' && Number(info.cluster_known_nodes) === total,
      );
      if (healthy && (running.length === total || !allRunning)) return;
      last = infos.map((info, index) => `${running[index]!.port}: ${info ? `${info.cluster_state}, slots ok ${info.cluster_slots_ok}, known ${info.cluster_known_nodes}` : 'no answer'}`).join('; ');
      if (Date.now() > deadline) throw new Error(`the Redis Cluster did not become healthy within ${timeoutMs} ms (${last})`);
      await sleep(100);
    }
  }

  async function stop(): Promise<void> {
    process.off('exit', killAll);
    await Promise.all(nodes.map((_, index) => halt(index, 'SIGTERM')));
    rmSync(directory, { recursive: true, force: true });
  }

  try {
    await Promise.all(nodes.map((_, index) => launch(index)));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: options.timeoutMs ?? 30_000,
    });
    await waitUntilHealthy();
    if (replicas > 0) await waitForReplicas(nodes.map((node) => node.port), masters * replicas, options.timeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes,
    url: nodes.map((node) => node.url).join(','),
    pids: () => nodes.flatMap((node) => (node.pid === undefined ? [] : [node.pid])),
    kill: (index, signal = 'SIGKILL') => halt(index, signal),
    restart: async (index) => {
      await halt(index, 'SIGKILL');
      await launch(index);
      await waitUntilHealthy();
    },
    waitUntilHealthy,
    stop,
  };
}
