--[[
  An approval was answered: a parked turn's lease ends now and the next acquire resumes it. A turn not parked yet
  (still on its way to PARK, or its holder died) finds the answer through the early-answer key.

  KEYS[1] turns HASH  KEYS[2] sched ZSET  KEYS[3] wake ZSET  KEYS[4] the turn's early approval answer
  ARGV[1] turn id  ARGV[2] session key

  Returns 'unparked' | 'not-parked'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value or parse_turn(value).holder ~= 'parked' then
  redis.call('SET', KEYS[4], '1', 'PX', 86400000)
  return 'not-parked'
end
local turn = parse_turn(value)
turn.expiry = 0
redis.call('HSET', KEYS[1], ARGV[1], turn_value(turn))
redis.call('ZADD', KEYS[2], now_ms(), ARGV[2])
redis.call('ZADD', KEYS[3], 0, '0')
return 'unparked'
