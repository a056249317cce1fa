--[[
  A worker that stops taking turns (shutdown) gives back the sessions its last pop took and it will not run: each is
  due now for any worker, and the shard's workers are woken. Only sessions still scheduled are touched (every
  popped one is: pop-due.lua leaves them in the schedule, later); one acquired meanwhile is looked at again, which
  finds it busy.

  KEYS[1] sched ZSET  KEYS[2] wake ZSET
  ARGV the session keys

  Returns how many sessions it handed back.
]]
--- @include "common"
local now = now_ms()
local arguments = {}
for index, session in ipairs(ARGV) do
  arguments[2 * index - 1] = now
  arguments[2 * index] = session
end
local handed = 0
if #arguments > 0 then handed = redis.call('ZADD', KEYS[1], 'XX', 'LT', 'CH', unpack(arguments)) end
redis.call('ZADD', KEYS[2], 0, '0')
return handed
