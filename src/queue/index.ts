export { AbortBus } from './abort-bus.js';
export { startEmbeddedRedis, type EmbeddedRedis } from './embedded-redis.js';
export { InboundQueue, INBOUND_QUEUE, jobIdFor, type InboundJobData, type SubmitResult } from './inbound-queue.js';
export { createRedis, waitUntilReady } from './redis-connection.js';
export { SessionScheduler, type SchedulerOptions } from './session-scheduler.js';
export {
  ABORT_REASONS,
  isShutdown,
  TurnWorker,
  type TurnOutcome,
  type TurnRequest,
  type TurnRunner,
} from './turn-worker.js';
export { GroupContext, type ContextLine } from './group-context.js';
export { SessionLock, type HeldLock } from './session-lock.js';
export { InboundDedupe } from './inbound-dedupe.js';
export { RedisChannelState } from './redis-channel-state.js';
export { stopSessions } from './stop-sessions.js';
