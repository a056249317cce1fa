--[[
  Fields of a turn's delivery record (the computed answer, the send about to happen, the parts sent), written only
  by the turn's current holder.

  KEYS[1] turns HASH  KEYS[2] the turn's delivery record HASH
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] ttl seconds  ARGV[4..] field, value, field, value…

  Returns 'ok' | 'lost'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then return 'lost' end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 'ok'
