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
--- @include "enqueue-message"
local limit = tonumber(ARGV[6])
local running = enqueue_message(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], limit, ARGV[7], ARGV[8], ARGV[9])
if running == nil then return { 'duplicate' } end
if running < limit then redis.call('ZADD', KEYS[5], 0, '0') end
return { 'queued', tostring(running) }
