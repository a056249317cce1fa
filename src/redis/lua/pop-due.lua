--[[
  A worker takes up to ARGV[1] sessions that are due: first those it is asked to look at first (placed on it, or
  released by it with messages waiting: see enqueue.lua), then the shard's. The shard's stay scheduled, ARGV[2] ms
  later: a worker that dies before it acquires them loses nothing (an acquire or a release schedules them
  properly); a preferred one is in the shard's schedule too, a little later, for the same reason.

  KEYS[1] sched ZSET the shard's sessions → when to look at them
  KEYS[2] wake  ZSET the shard's marker
  KEYS[3] preferred ZSET this worker's sessions to look at first

  Returns { now, next due ms ('' when nothing is scheduled), session keys... }
]]
--- @include "common"
local now = now_ms()
local count = tonumber(ARGV[1])
local mine = redis.call('ZPOPMIN', KEYS[3], count)
local preferred, taken = {}, {}
for index = 1, #mine, 2 do
  preferred[#preferred + 1] = mine[index]
  taken[mine[index]] = true
end
local due = {}
if #preferred < count then
  for _, session in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, count - #preferred)) do
    if not taken[session] then due[#due + 1] = session end
  end
end
if #due > 0 then
  local later = now + tonumber(ARGV[2])
  local arguments = {}
  for index, session in ipairs(due) do
    arguments[2 * index - 1] = later
    arguments[2 * index] = session
  end
  redis.call('ZADD', KEYS[1], 'XX', unpack(arguments))
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #due + #preferred == count and head[2] and tonumber(head[2]) <= now then
  -- more is due than this worker took: the marker wakes another one
  redis.call('ZADD', KEYS[2], 0, '0')
elseif #due > 0 then
  -- every due session is taken: a marker left by their arrival would only wake a worker to find nothing
  redis.call('ZREM', KEYS[2], '0')
end
local result = { tostring(now), head[2] or '' }
for _, session in ipairs(preferred) do result[#result + 1] = session end
for _, session in ipairs(due) do result[#result + 1] = session end
return result
