--[[
  A worker that stops taking turns (shutdown) hands the sessions waiting for it (its preferred set, see
  enqueue.lua) to the shard: they are looked at now by any worker.

  KEYS[1] the worker's preferred ZSET  KEYS[2] sched ZSET  KEYS[3] wake ZSET

  Returns how many sessions it handed back.
]]
--- @include "common"
local handed = hand_to_shard(KEYS[1], KEYS[2], now_ms())
if handed > 0 then redis.call('ZADD', KEYS[3], 0, '0') end
return handed
