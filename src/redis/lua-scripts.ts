import { createHash } from 'node:crypto';
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
    return this.redis.evalsha(script.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      return this.redis.eval(script.source, keys.length, ...keys, ...args);
    }) as Promise<Reply>;
  }
}
