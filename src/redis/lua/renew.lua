--[[
  The holder of a running turn pushes its lease back; a holder whose turn was taken back or over learns it here.

  KEYS[1] turns HASH   KEYS[2] sched ZSET
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] lease ms  ARGV[4] session key

  Returns 'ok' | 'aborted' (/stop marked it: the holder ends it) | 'lost'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 'lost' end
local turn = parse_turn(value)
if turn.holder ~= ARGV[2] then return 'lost' end
turn.expiry = now_ms() + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], turn_value(turn))
redis.call('ZADD', KEYS[2], 'GT', turn.expiry, ARGV[4])
if turn.flags == 'a' then return 'aborted' end
return 'ok'
