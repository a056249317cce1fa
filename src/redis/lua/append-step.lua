--[[
  A completed step of a running turn (an assistant message that called tools, a tool result) is appended to its
  checkpoint, only by the turn's current holder: a stalled holder whose turn was taken over writes nothing.

  KEYS[1] turns HASH  KEYS[2] the turn's checkpoint LIST
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] the step (JSON)  ARGV[4] ttl seconds

  Returns 'ok' | 'lost'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then return 'lost' end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 'ok'
