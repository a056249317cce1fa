--[[
  Replaces a reservation with the real cost of the call once it is known (0 when the call failed).
  The keys are the reservation's own, so a call that ends after midnight settles the day it reserved on.

  KEYS[1] user spend    STRING  nano-USD, as in reserve-budget.lua
  KEYS[2] chat spend    STRING
  KEYS[3] agent spend   STRING

  ARGV[1] correction    nano-USD: real cost minus the reservation (negative when the call cost less)
  ARGV[2] ttl           seconds, as in reserve-budget.lua

  Returns the three spends after the correction.
]]
local correction = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local spends = {}
for index = 1, 3 do
  spends[index] = redis.call('INCRBY', KEYS[index], correction)
  redis.call('EXPIRE', KEYS[index], ttl)
end
return spends
