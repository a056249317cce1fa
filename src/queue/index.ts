export { AbortBus } from './abort-bus.js';
export { redisServerVersion, startEmbeddedRedis, type EmbeddedRedis } from './embedded-redis.js';
export { InboundQueue, INBOUND_QUEUE, COMPACT_JOB, type InboundJobData, type LocalWorker, type SubmitResult } from './inbound-queue.js';
export { QueueWorker, TURN_RETRY, turnRetryDelay, type TurnAbandoner } from './queue-worker.js';
export { startCompactionWorker } from './compaction-worker.js';
export { stopSessions } from './stop-sessions.js';
