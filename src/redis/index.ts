/** The one owner of Redis: connections, every key name (KeySpace) and every script (lua/). */
export { createRedisClient, clusterSeeds, waitUntilReady, type ConnectionPurpose, type RedisClient, type RedisTarget } from './redis-client.js';
export { RedisConnections } from './redis-connections.js';
export { KeySpace, type SessionKeys, type ShardKeys } from './key-space.js';
export { SessionQueue, inPlatformOrder, runningTurnValue, type AcquireResult, type Claim, type EnqueueResult, type QueueMode, type ReleaseResult, type SessionQueueOptions, type StopResult } from './session-queue.js';
export { TurnStateStore, type TurnLease } from './turn-state.js';
export { WorkerBeat, WORKER_BEAT_DEFAULTS, type WorkerBeatOptions } from './worker-beat.js';
export { Invalidations } from './invalidations.js';
export { GroupContext, type ContextLine } from './group-context.js';
export { SessionLock, type HeldLock } from './session-lock.js';
export { LeaderLease, type LeaseHolder } from './leader-lease.js';
export { AlbumMarks } from './album-marks.js';
export { RedisChannelState } from './channel-state.js';
export { ChannelActivity, CHANNEL_ACTIVITY_FLUSH_MS } from './channel-activity.js';
export { BudgetStore } from './budget-store.js';
export { UserRateLimiter, type RateDecision, type UserRateLimiterOptions } from './user-rate-limiter.js';
export { RedisLoginFailures, MemoryLoginFailures, type LoginFailureStore, type LoginState } from './admin-login-failures.js';
export { scanKeys } from './scan-keys.js';
export { RedisFailoverCooldowns } from './failover-cooldowns.js';
