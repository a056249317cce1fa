import { luaSource } from './lua-source.js';
import type { RedisClient } from './redis-client.js';

type Runner = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

/**
 * Runs `lua/<name>.lua` scripts by their SHA (EVALSHA, falling back to EVAL once per connection, as ioredis's
 * `defineCommand` does), with every key declared in KEYS: `scripts` names each script and how many keys it takes.
 */
export class LuaScripts<Name extends string> {
  readonly #runners = new Map<Name, { run: Runner; keys: number }>();

  constructor(redis: RedisClient, scripts: Readonly<Record<Name, number>>) {
    const commands = redis as unknown as Record<string, Runner>;
    for (const [name, numberOfKeys] of Object.entries(scripts) as Array<[Name, number]>) {
      const command = `lua_${name.replaceAll('-', '_')}`;
      if (!(command in redis)) redis.defineCommand(command, { numberOfKeys, lua: luaSource(name) });
      this.#runners.set(name, { run: commands[command]!.bind(redis), keys: numberOfKeys });
    }
  }

  run<Reply>(name: Name, keys: string[], args: Array<string | number>): Promise<Reply> {
    const script = this.#runners.get(name)!;
    if (keys.length !== script.keys) throw new Error(`script ${name} takes ${script.keys} keys, got ${keys.length}`);
    return script.run(...keys, ...args) as Promise<Reply>;
  }
}
