--[[
  A worker stopped beating: every session it held a turn of in this shard, and every session waiting for it (its
  preferred set, see enqueue.lua), is looked at now (the acquire there takes its turns back), and the
  worker is forgotten.

  KEYS[1] alive HASH  KEYS[2] the dead worker's held SET  KEYS[3] sched ZSET  KEYS[4] wake ZSET
  KEYS[5] the dead worker's preferred ZSET
  ARGV[1] the dead worker's id  ARGV[2] the beat deadline the caller saw (the worker is reaped only if it still holds)

  Returns how many turns it held, or -1 when it beat again meanwhile.
]]
--- @include "common"
local beating_until = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
if beating_until > tonumber(ARGV[2]) then return -1 end
local now = now_ms()
local held = redis.call('SMEMBERS', KEYS[2])
for _, member in ipairs(held) do
  redis.call('ZADD', KEYS[3], now, string.match(member, '^(.*)\31[^\31]*$'))
end
local waiting = hand_to_shard(KEYS[5], KEYS[3], now)
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[1], ARGV[1])
if #held + waiting > 0 then redis.call('ZADD', KEYS[4], 0, '0') end
return #held
