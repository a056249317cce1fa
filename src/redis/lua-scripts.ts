import { luaSource } from './lua-source.js';
import type { RedisClient } from './redis-client.js';

type Runner = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

/** How many keys a script takes: a fixed number, or `'any'` (a batch over keys of one slot). */
export type ScriptKeys = number | 'any';

/**
 * Runs `lua/<name>.lua` scripts by their SHA (EVALSHA, falling back to EVAL once per connection, as ioredis's
 * `defineCommand` does), with every key declared in KEYS: `scripts` names each script and how many keys it takes.
 */
export class LuaScripts<Name extends string> {
  readonly #runners = new Map<Name, { run: Runner; keys: ScriptKeys }>();

  constructor(redis: RedisClient, scripts: Readonly<Record<Name, ScriptKeys>>) {
    const commands = redis as unknown as Record<string, Runner>;
    for (const [name, keys] of Object.entries(scripts) as Array<[Name, ScriptKeys]>) {
      const command = `lua_${name.replaceAll('-', '_')}`;
      // without numberOfKeys, ioredis takes the key count as the command's first argument
      if (!(command in redis)) redis.defineCommand(command, { ...(keys === 'any' ? {} : { numberOfKeys: keys }), lua: luaSource(name) });
      this.#runners.set(name, { run: commands[command]!.bind(redis), keys });
    }
  }

  run<Reply>(name: Name, keys: string[], args: Array<string | number>): Promise<Reply> {
    const script = this.#runners.get(name)!;
    if (script.keys === 'any') return script.run(keys.length, ...keys, ...args) as Promise<Reply>;
    if (keys.length !== script.keys) throw new Error(`script ${name} takes ${script.keys} keys, got ${keys.length}`);
    return script.run(...keys, ...args) as Promise<Reply>;
  }
}
