--[[
  Replaces a reservation with the real cost of the call once it is known (0 when the call failed).
  The keys are the reservation's own, so a call that ends after midnight settles on the day it reserved on.

  KEYS[1] user budget   HASH  spent, reserved (nano-USD), as in reserve-budget.lua
  KEYS[2] chat budget   HASH
  KEYS[3] agent budget  HASH

  ARGV[1] reservation   nano-USD the call reserved
  ARGV[2] cost          nano-USD the call really cost
  ARGV[3] ttl           seconds, as in reserve-budget.lua

  Returns the settled spend of the three scopes afterwards.
]]
local reservation = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local spent = {}
for index = 1, 3 do
  -- (Lua's -0 would reach Redis as "-0", which HINCRBY refuses)
  if reservation ~= 0 then redis.call('HINCRBY', KEYS[index], 'reserved', -reservation) end
  spent[index] = redis.call('HINCRBY', KEYS[index], 'spent', cost)
  redis.call('EXPIRE', KEYS[index], ttl)
end
return spent
