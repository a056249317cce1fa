import { luaSource } from './lua-source.js';
import type { RedisClient } from './redis-client.js';

/** The session queue's scripts (`lua/<name>.lua`) and how many of their arguments are keys. */
const SCRIPTS = {
  enqueue: 5,
  'pop-due': 2,
  acquire: 7,
  renew: 2,
  release: 8,
  requeue: 6,
  park: 5,
  unpark: 4,
  stop: 4,
  interrupt: 1,
  'append-step': 2,
  'save-delivery': 2,
  'reap-worker': 4,
  beat: 1,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

type Runner = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

const commandName = (name: string) => `queue_${name.replaceAll('-', '_')}`;

/**
 * Runs the `.lua` scripts by their SHA (EVALSHA, falling back to EVAL once per connection, as ioredis's
 * `defineCommand` does), with every key declared in KEYS.
 */
export class QueueScripts {
  readonly #runners = new Map<ScriptName, Runner>();

  constructor(redis: RedisClient) {
    const commands = redis as unknown as Record<string, Runner>;
    for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as Array<[ScriptName, number]>) {
      const command = commandName(name);
      if (!(command in redis)) redis.defineCommand(command, { numberOfKeys, lua: luaSource(name) });
      this.#runners.set(name, commands[command]!.bind(redis));
    }
  }

  run<Reply>(name: ScriptName, keys: string[], args: Array<string | number>): Promise<Reply> {
    if (keys.length !== SCRIPTS[name]) throw new Error(`script ${name} takes ${SCRIPTS[name]} keys, got ${keys.length}`);
    return this.#runners.get(name)!(...keys, ...args) as Promise<Reply>;
  }
}
