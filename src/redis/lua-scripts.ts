import { createHash } from 'node:crypto';
import { Cluster } from 'ioredis';
import { luaSource } from './lua-source.js';
import type { RedisClient } from './redis-client.js';

/** How many keys a script takes: a fixed number, a choice of them, or `'any'` (a batch over keys of one slot). */
export type ScriptKeys = number | readonly number[] | 'any';

interface Script {
  source: string;
  sha: string;
}

const loaded = new Map<string, Script>();

function scriptOf(name: string): Script {
  let script = loaded.get(name);
  if (!script) {
    const source = luaSource(name);
    script = { source, sha: createHash('sha1').update(source).digest('hex') };
    loaded.set(name, script);
  }
  return script;
}

const isNoScript = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

/**
 * A reply that says the script did not run on this node and where to send it: `MOVED <slot> <host>:<port>`,
 * `ASK <slot> <host>:<port>`, or `READONLY` (the node became a replica: a planned failover). Nothing was written.
 */
function redirectionOf(error: unknown): { kind: 'MOVED' | 'ASK' | 'READONLY'; host: string; port: number } | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message.startsWith('READONLY')) return { kind: 'READONLY', host: '', port: 0 };
  const match = /^(MOVED|ASK) \d+ (.+):(\d+)/.exec(error.message);
  return match ? { kind: match[1] as 'MOVED' | 'ASK', host: match[2]!, port: Number(match[3]) } : undefined;
}

/** How many redirections one script call follows before it gives up (a cluster that keeps moving the slot). */
const MAX_REDIRECTIONS = 5;

const refreshSlots = (cluster: Cluster) => new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));

/**
 * Runs `lua/<name>.lua` scripts by their SHA (EVALSHA, falling back to EVAL, which loads the script, when the
 * server does not know it yet), with every key declared in KEYS: `scripts` names each script and how many keys
 * it takes.
 *
 * Not ioredis's `defineCommand`: every auto-pipelined batch is a new ioredis `Pipeline`, which copies each
 * defined command of its connection onto itself, and at a few turns a second most batches hold one command.
 */
export class LuaScripts<Name extends string> {
  readonly #scripts = new Map<Name, Script & { keys: ScriptKeys }>();

  constructor(
    private readonly redis: RedisClient,
    scripts: Readonly<Record<Name, ScriptKeys>>,
  ) {
    for (const [name, keys] of Object.entries(scripts) as Array<[Name, ScriptKeys]>) this.#scripts.set(name, { ...scriptOf(name), keys });
  }

  run<Reply>(name: Name, keys: string[], args: Array<string | number>): Promise<Reply> {
    const script = this.#scripts.get(name)!;
    if (script.keys !== 'any' && !(typeof script.keys === 'number' ? keys.length === script.keys : script.keys.includes(keys.length))) {
      throw new Error(`script ${name} takes ${String(script.keys)} keys, got ${keys.length}`);
    }
    return this.#follow(script, keys, args, 0) as Promise<Reply>;
  }

  #send(script: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.redis.evalsha(script.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      return this.redis.eval(script.source, keys.length, ...keys, ...args);
    });
  }

  /**
   * ioredis follows MOVED and ASK for a command sent alone, but an auto-pipelined batch (the commands of one
   * node, whatever their slots) whose other commands went through hands the redirection to the caller, and
   * goes on routing the slot to the old node until its next slots refresh (ioredis issue 2075): after a
   * failover or a slot migration every script call to that slot failed for seconds. Here MOVED and READONLY
   * refresh the slots and send again; ASK (the slot is being migrated and these keys already moved) sends
   * `ASKING` and the script to the node named, on one connection. None of them ran the script.
   */
  #follow(script: Script, keys: string[], args: Array<string | number>, redirections: number): Promise<unknown> {
    return this.#send(script, keys, args).catch(async (error: unknown) => {
      const redirection = redirectionOf(error);
      const cluster = this.redis;
      if (!redirection || !(cluster instanceof Cluster) || redirections >= MAX_REDIRECTIONS) throw error;
      if (redirection.kind === 'ASK') {
        const node = cluster.nodes('master').find((candidate) => candidate.options.port === redirection.port && candidate.options.host === redirection.host);
        if (node) return this.#ask(node, script, keys, args);
      }
      await refreshSlots(cluster);
      return this.#follow(script, keys, args, redirections + 1);
    });
  }

  /** `ASKING` then the script, on the one connection to the node that imports the slot. */
  async #ask(node: ReturnType<Cluster['nodes']>[number], script: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    const sent = async (body: (pipeline: ReturnType<typeof node.pipeline>) => void) => {
      const pipeline = node.pipeline().asking();
      body(pipeline);
      const [, [error, reply]] = (await pipeline.exec()) as [[Error | null, unknown], [Error | null, unknown]];
      if (error) throw error;
      return reply;
    };
    return sent((pipeline) => pipeline.evalsha(script.sha, keys.length, ...keys, ...args)).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      return sent((pipeline) => pipeline.eval(script.source, keys.length, ...keys, ...args));
    });
  }
}
