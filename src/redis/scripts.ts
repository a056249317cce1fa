import type { RedisClient } from './redis-client.js';
import { LuaScripts } from './lua-scripts.js';

/** The session queue's scripts and how many keys each takes. */
const QUEUE_SCRIPTS = {
  // 7 with a claim for the enqueuing worker
  enqueue: [5, 7],
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

export type QueueScriptName = keyof typeof QUEUE_SCRIPTS;

export class QueueScripts extends LuaScripts<QueueScriptName> {
  constructor(redis: RedisClient) {
    super(redis, QUEUE_SCRIPTS);
  }
}
