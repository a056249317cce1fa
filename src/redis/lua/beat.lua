--[[
  A worker process says it is alive in one shard, and learns which workers stopped beating there.

  KEYS[1] alive HASH worker id → beating until (ms, Redis's clock)
  ARGV[1] this worker's id  ARGV[2] how long this beat lasts (ms)

  Returns { now, dead worker id, its last deadline, … }
]]
--- @include "common"
local now = now_ms()
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
local flat = redis.call('HGETALL', KEYS[1])
local result = { tostring(now) }
for index = 1, #flat, 2 do
  if (tonumber(flat[index + 1]) or 0) <= now then
    result[#result + 1] = flat[index]
    result[#result + 1] = flat[index + 1]
  end
end
return result
