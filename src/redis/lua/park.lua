--[[
  The turn waits for a person (an approval): it keeps its slot and its claimed messages, so the session's order
  holds, but no worker: its lease lasts until the deadline. An unpark (the answer) or the deadline hands it to a
  worker again, through the same path as a takeover.

  KEYS[1] turns HASH  KEYS[2] sched ZSET  KEYS[3] wake ZSET  KEYS[4] held SET (the caller's)
  KEYS[5] the turn's early approval answer (set when the answer came before this)
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] deadline ms  ARGV[4] session key

  Returns 'parked' | 'resume' (answered meanwhile: it runs again now) | 'aborted' (stopped meanwhile) | 'lost'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then return 'lost' end
local turn = parse_turn(value)
if turn.flags == 'a' then return 'aborted' end
redis.call('SREM', KEYS[4], ARGV[4] .. SEP .. ARGV[1])
turn.holder = 'parked'
if redis.call('DEL', KEYS[5]) == 1 then
  turn.expiry = 0
  redis.call('HSET', KEYS[1], ARGV[1], turn_value(turn))
  redis.call('ZADD', KEYS[2], now_ms(), ARGV[4])
  redis.call('ZADD', KEYS[3], 0, '0')
  return 'resume'
end
turn.expiry = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], turn_value(turn))
redis.call('ZADD', KEYS[2], 'LT', turn.expiry, ARGV[4])
return 'parked'
