--[[
  A number that only grows: set to ARGV[1] unless it holds a higher one already; kept ARGV[2] seconds from now.

  KEYS[1] mark  STRING  the number

  ARGV[1] value   ARGV[2] ttl (seconds)
]]
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local value = tonumber(ARGV[1])
if value > current then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
else
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 0
