--[[
  A lease or lock pushes its expiry back, only for the holder of its token.

  KEYS[1] the lease (STRING: the holder's token)
  ARGV[1] token  ARGV[2] ttl ms

  Returns 1 while the token holds it, else 0.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
