--[[
  Adds spend that was never reserved (calls under no limit), a batch of one day at once.

  KEYS[i]     budget HASH (user, chat or agent of one day), as in reserve-budget.lua

  ARGV[1]     ttl            seconds the day's keys live
  ARGV[1 + i] spend of KEYS[i] in nano-USD, followed by "e" when the key is to get the ttl (its first spend seen
              by this process today)

  Returns the number of keys.
]]
local ttl = ARGV[1]
for index, key in ipairs(KEYS) do
  local arg = ARGV[index + 1]
  local expire = string.sub(arg, -1) == 'e'
  -- passed on as text: a Lua number would go back to Redis through "%.17g"
  local nanos = expire and string.sub(arg, 1, -2) or arg
  if nanos ~= '0' then redis.call('HINCRBY', key, 'spent', nanos) end
  if expire then redis.call('EXPIRE', key, ttl) end
end
return #KEYS
