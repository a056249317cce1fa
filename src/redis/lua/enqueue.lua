--[[
  A message joins its session: registered once (the dedupe key), appended to the pending list, and the session
  is scheduled when one of its slots is free (a release schedules it otherwise).

  KEYS[1] seen    STRING  the message's dedupe key, kept a day: a redelivery is a duplicate
  KEYS[2] pending LIST    the session's pending entries, oldest first
  KEYS[3] meta    HASH    w: pending entries that start their own turn, n: running turns, p: pending entries,
                          la: arrival of the newest entry (debounce)
  KEYS[4] sched   ZSET    the shard's sessions → when to look at them
  KEYS[5] wake    ZSET    the shard's marker: an idle worker blocks on it
  KEYS[6] alive   HASH    worker → beating until ms
  KEYS[7] preferred ZSET  the sessions ARGV[10] is asked to look at first

  ARGV[1] seen ttl (seconds)   ARGV[2] entry id   ARGV[3] arrived ms   ARGV[4] album id ('' for none)
  ARGV[5] payload (JSON)       ARGV[6] slot limit ARGV[7] session key  ARGV[8] ready at ms
  ARGV[9] '' to schedule at ARGV[8] (a debounce may push it later) | 'LT' to only move it earlier
  ARGV[10] the worker the session goes to first ('' none)   ARGV[11] how long that worker has to take the session
           before any worker may (ms)

  With a claim (the worker the session goes to is one of the enqueuing process, with a free slot), also:
  KEYS[8] turns HASH   KEYS[9] held SET (that worker's)
  ARGV[12] lease ms    ARGV[13] new turn id    ARGV[14] holder token

  A message that finds its session idle (nothing running, nothing pending) and may start at once (no debounce, no
  album) is then claimed as acquire.lua would claim it, without going through the pending list and the schedule:
  the turn starts in the enqueuing process, two round trips and a worker's wake-up sooner.

  Otherwise a session that may start now goes first to the worker the caller names (every process names the same
  one for a session: rendezvous hashing over the beating workers, see worker-roster.ts), when it is beating: into
  its preferred set, which it blocks on, so the session's turns run where its history is cached. The shared
  schedule gets it too, ARGV[11] ms later, without waking anyone: if that worker does not take it by then (busy,
  stuck, dead), any worker does. Unnamed, or named for a worker that stopped beating, it goes to the shared
  schedule at once.

  Returns { 'duplicate' } | { 'queued', running } (running: turns of the session running now)
        | { 'claimed', history version, conversation } (the message is the turn ARGV[13], held by ARGV[14])
]]
--- @include "common"
if not redis.call('SET', KEYS[1], 'q', 'NX', 'EX', ARGV[1]) then return { 'duplicate' } end
local meta = redis.call('HMGET', KEYS[3], 'w', 'n', 'p', 's', 'hv', 'c')
local waiting, running, pending = counter(meta[1]), counter(meta[2]), counter(meta[3])
local limit = tonumber(ARGV[6])
local now_ready = ARGV[9] == 'LT' and ARGV[4] == ''
if ARGV[12] and running == 0 and pending == 0 and waiting == 0 and now_ready then
  local seq = counter(meta[4]) + 1
  local expiry = now_ms() + tonumber(ARGV[12])
  local turn = { holder = ARGV[14], expiry = expiry, flags = '', attempt = 1, round = 0, seq = seq, conversation = meta[6] or '', body = '[' .. ARGV[5] .. ']' }
  redis.call('HSET', KEYS[8], ARGV[13], turn_value(turn))
  redis.call('SADD', KEYS[9], ARGV[7] .. SEP .. ARGV[13])
  redis.call('HSET', KEYS[3], 'w', 0, 'n', 1, 'p', 0, 's', seq, 'la', ARGV[3])
  -- the backstop, as for any acquired turn: the session is looked at again when the lease would expire
  redis.call('ZADD', KEYS[4], expiry, ARGV[7])
  return { 'claimed', meta[5] or '', meta[6] or '' }
end
-- a message that arrives while every slot is taken (or promised) is collected into a later turn
local behind = running + waiting >= limit
redis.call('RPUSH', KEYS[2], entry_of('m', ARGV[2], ARGV[3], ARGV[4], behind and 'b' or '', 1, 0, ARGV[5]))
redis.call('HSET', KEYS[3], 'w', behind and waiting or waiting + 1, 'p', pending + 1, 'la', ARGV[3])
if running < limit then
  local named = ARGV[10]
  if now_ready and named ~= '' and (tonumber(redis.call('HGET', KEYS[6], named) or '0') or 0) > now_ms() then
    redis.call('ZADD', KEYS[7], ARGV[8], ARGV[7])
    redis.call('ZADD', KEYS[4], 'LT', tonumber(ARGV[8]) + tonumber(ARGV[11]), ARGV[7])
  else
    if ARGV[9] == 'LT' then
      redis.call('ZADD', KEYS[4], 'LT', ARGV[8], ARGV[7])
    else
      redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
    end
    redis.call('ZADD', KEYS[5], 0, '0')
  end
end
return { 'queued', tostring(running) }
