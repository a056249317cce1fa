--[[
  Creates an approval request unless it exists (a resumed turn finds the one it made before).

  KEYS[1] the request (HASH, see approval-records.ts)
  ARGV[1..n-1] field, value pairs  ARGV[n] ttl seconds

  Returns 'created' | 'exists'
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('HSET', KEYS[1], unpack(ARGV, 1, #ARGV - 1))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[#ARGV]))
return 'created'
