--[[
  A message joins its session: registered once (the dedupe key), appended to the pending list, and the session
  is scheduled when one of its slots is free (a release schedules it otherwise).

  KEYS[1] seen    STRING  the message's dedupe key, kept a day: a redelivery is a duplicate
  KEYS[2] pending LIST    the session's pending entries, oldest first
  KEYS[3] meta    HASH    w: pending entries that start their own turn, n: running turns, p: pending entries,
                          la: arrival of the newest entry (debounce)
  KEYS[4] sched   ZSET    the shard's sessions → when to look at them
  KEYS[5] wake    ZSET    the shard's marker: an idle worker blocks on it

  ARGV[1] seen ttl (seconds)   ARGV[2] entry id   ARGV[3] arrived ms   ARGV[4] album id ('' for none)
  ARGV[5] payload (JSON)       ARGV[6] slot limit ARGV[7] session key  ARGV[8] ready at ms
  ARGV[9] '' to schedule at ARGV[8] (a debounce may push it later) | 'LT' to only move it earlier

  Returns { 'duplicate' } | { 'queued', running } (running: turns of the session running now)
]]
--- @include "common"
if not redis.call('SET', KEYS[1], 'q', 'NX', 'EX', ARGV[1]) then return { 'duplicate' } end
local meta = redis.call('HMGET', KEYS[3], 'w', 'n', 'p')
local waiting, running, pending = counter(meta[1]), counter(meta[2]), counter(meta[3])
local limit = tonumber(ARGV[6])
-- a message that arrives while every slot is taken (or promised) is collected into a later turn
local behind = running + waiting >= limit
redis.call('RPUSH', KEYS[2], entry_of('m', ARGV[2], ARGV[3], ARGV[4], behind and 'b' or '', 1, 0, ARGV[5]))
redis.call('HSET', KEYS[3], 'w', behind and waiting or waiting + 1, 'p', pending + 1, 'la', ARGV[3])
if running < limit then
  if ARGV[9] == 'LT' then
    redis.call('ZADD', KEYS[4], 'LT', ARGV[8], ARGV[7])
  else
    redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
  end
  redis.call('ZADD', KEYS[5], 0, '0')
end
return { 'queued', tostring(running) }
