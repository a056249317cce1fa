--[[
  An operator retries a dead letter: its messages go back to the head of their session as one turn (a new id, its
  attempts counted afresh), so they run next, before any message still waiting there, and once: the dead letter
  goes in the same step, so a second Retry (or a Discard) finds nothing.

  KEYS[1] dead index ZSET  KEYS[2] dead letter HASH  KEYS[3] pending LIST  KEYS[4] meta HASH
  KEYS[5] sched ZSET  KEYS[6] wake ZSET
  ARGV[1] dead letter id  ARGV[2] the new turn's id  ARGV[3] session key (the dead letter's own, checked)

  Returns 'retried' | 'gone' (retried or discarded already, or expired)
]]
--- @include "common"
local letter = redis.call('HMGET', KEYS[2], 'session', 'body')
if not letter[1] or letter[1] ~= ARGV[3] or redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 'gone' end
redis.call('DEL', KEYS[2])
redis.call('LPUSH', KEYS[3], entry_of('t', ARGV[2], 0, '', '', 1, 0, letter[2]))
redis.call('HINCRBY', KEYS[4], 'p', 1)
-- a turn put back claims the next slot (see take-back.lua)
redis.call('HINCRBY', KEYS[4], 'w', 1)
redis.call('ZADD', KEYS[5], 'LT', now_ms(), ARGV[3])
redis.call('ZADD', KEYS[6], 0, '0')
return 'retried'
