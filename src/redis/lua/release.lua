--[[
  A turn ends: its slot, its checkpoint and its delivery record go; the session is scheduled again when work waits.

  KEYS[1] meta HASH  KEYS[2] turns HASH  KEYS[3] sched ZSET  KEYS[4] wake ZSET  KEYS[5] held SET (the caller's)
  KEYS[6] the turn's checkpoint  KEYS[7] the turn's delivery record  KEYS[8] the turn's early approval answer
  KEYS[9] preferred ZSET the sessions the releasing worker is asked to look at first (see enqueue.lua)
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] session key  ARGV[4] slot limit
  ARGV[5] the session's next history version when the turn wrote its history ('' when it did not)
  ARGV[6] the history version the turn started from
  ARGV[7] how long the releasing worker has to take the session's next turn before any worker may (ms)

  The next version is written as given only when the session still stood at the turn's own start: the worker's
  cache holds the turn's history at that version before this runs (turn/session-cache.ts). When another writer
  moved it meanwhile (a /new, a summary, a group turn beside this one), it moves on to a version nobody holds.

  Messages waiting go first to the releasing worker, which holds the session's history in its cache (see
  enqueue.lua); any worker takes them ARGV[7] ms later.

  Returns { 'released', history version after } | { 'lost' } (another holder has it now)
]]
--- @include "common"
local member = ARGV[3] .. SEP .. ARGV[1]
local value = redis.call('HGET', KEYS[2], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then
  redis.call('SREM', KEYS[5], member)
  return { 'lost' }
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[5], member)
redis.call('DEL', KEYS[6], KEYS[7], KEYS[8])
local meta = redis.call('HMGET', KEYS[1], 'n', 'p', 'hv')
local running, pending, previous = counter(meta[1]) - 1, counter(meta[2]), meta[3] or ''
local version = previous
if ARGV[5] ~= '' then
  version = ARGV[5]
  if previous ~= ARGV[6] then version = version .. '~' end
end
if pending > 0 and running < tonumber(ARGV[4]) then
  local now = now_ms()
  redis.call('ZADD', KEYS[9], now, ARGV[3])
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[7]), ARGV[3])
elseif running == 0 then
  redis.call('ZREM', KEYS[3], ARGV[3])
end
redis.call('HSET', KEYS[1], 'n', running, 'hv', version)
return { 'released', version }
