--[[
  A worker that stops taking turns (shutdown) hands the sessions waiting for it (its preferred set, see
  enqueue.lua) to the shard: they are looked at now by any worker.

  KEYS[1] the worker's preferred ZSET  KEYS[2] sched ZSET  KEYS[3] wake ZSET

  Returns how many sessions it handed back.
]]
--- @include "common"
local waiting = redis.call('ZRANGE', KEYS[1], 0, -1)
if #waiting == 0 then return 0 end
local now = now_ms()
for _, session in ipairs(waiting) do redis.call('ZADD', KEYS[2], now, session) end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[3], 0, '0')
return #waiting
