import type { RedisClient } from './redis-client.js';
import { LuaScripts } from './lua-scripts.js';

/** The session queue's scripts and how many keys each takes. */
const QUEUE_SCRIPTS = {
  // 9 with a claim for the enqueuing worker
  enqueue: [7, 9],
  'pop-due': 3,
  acquire: 7,
  renew: 2,
  release: 9,
  requeue: 6,
  park: 5,
  unpark: 4,
  stop: 4,
  interrupt: 1,
  'append-step': 2,
  'save-delivery': 3,
  'reap-worker': 5,
  'hand-back-preferred': 3,
  'hand-back': 2,
  beat: 1,
  'new-conversation': 1,
  'record-failure': 2,
  'dead-letter': 4,
  'dead-letter-retry': 6,
  'dead-letter-discard': 2,
} as const;

export type QueueScriptName = keyof typeof QUEUE_SCRIPTS;

export class QueueScripts extends LuaScripts<QueueScriptName> {
  constructor(redis: RedisClient) {
    super(redis, QUEUE_SCRIPTS);
  }
}
