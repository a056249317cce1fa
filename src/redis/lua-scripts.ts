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

/** A reply that says the script did not run on this node: `MOVED <slot> <host>:<port>`, or `READONLY` (a replica). */
const isRedirection = (error: unknown) => error instanceof Error && /^(MOVED|READONLY)/.test(error.message);

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
   * ioredis follows MOVED and ASK (cluster connections send each command alone: see redis-client.ts), but not
   * READONLY: after a planned failover the old master, now a replica, refuses the script until ioredis's next
   * slots refresh. READONLY (and a MOVED ioredis gave up on) refresh the slots and send again; the script did
   * not run.
   */
  #follow(script: Script, keys: string[], args: Array<string | number>, redirections: number): Promise<unknown> {
    return this.#send(script, keys, args).catch(async (error: unknown) => {
      const cluster = this.redis;
      if (!isRedirection(error) || !(cluster instanceof Cluster) || redirections >= MAX_REDIRECTIONS) throw error;
      await refreshSlots(cluster);
      return this.#follow(script, keys, args, redirections + 1);
    });
  }
}
