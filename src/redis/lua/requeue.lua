--[[
  A failed turn goes back to the head of its session, same id, to run again once ARGV[4] ms have passed
  (0: a worker handing its turns back on shutdown).

  KEYS[1] pending LIST  KEYS[2] meta HASH  KEYS[3] turns HASH  KEYS[4] sched ZSET  KEYS[5] wake ZSET  KEYS[6] held SET
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] session key  ARGV[4] delay ms  ARGV[5] next attempt  ARGV[6] round

  Returns 'requeued' | 'dropped' (stopped meanwhile: it ends here) | 'lost'
]]
--- @include "common"
local member = ARGV[3] .. SEP .. ARGV[1]
local value = redis.call('HGET', KEYS[3], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then
  redis.call('SREM', KEYS[6], member)
  return 'lost'
end
local turn = parse_turn(value)
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[6], member)
local meta = redis.call('HMGET', KEYS[2], 'n', 'p', 'w')
local running, pending, waiting = counter(meta[1]) - 1, counter(meta[2]), counter(meta[3])
if turn.flags == 'a' then
  redis.call('HSET', KEYS[2], 'n', running)
  if running == 0 and pending == 0 then redis.call('ZREM', KEYS[4], ARGV[3]) end
  return 'dropped'
end
local at = now_ms() + tonumber(ARGV[4])
redis.call('LPUSH', KEYS[1], entry_of('t', ARGV[1], at, '', '', ARGV[5], ARGV[6], turn.body, turn.conversation))
redis.call('HSET', KEYS[2], 'n', running, 'p', pending + 1, 'w', waiting + 1)
redis.call('ZADD', KEYS[4], 'LT', at, ARGV[3])
redis.call('ZADD', KEYS[5], 0, '0')
return 'requeued'
