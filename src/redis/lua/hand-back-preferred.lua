--[[
  A worker that stops taking turns (shutdown) hands the sessions waiting for it (its preferred set, see
  enqueue.lua) to the shard: they are looked at now by any worker. The shard's workers are woken even when the set
  was empty: a session the stopping worker released meanwhile is due at once in the shard's schedule.

  KEYS[1] the worker's preferred ZSET  KEYS[2] sched ZSET  KEYS[3] wake ZSET

  Returns how many sessions it handed back.
]]
--- @include "common"
local handed = hand_to_shard(KEYS[1], KEYS[2], now_ms())
redis.call('ZADD', KEYS[3], 0, '0')
return handed
