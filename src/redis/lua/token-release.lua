--[[
  A lease or lock is given up, only by the holder of its token (a holder never frees one that is no longer its own).

  KEYS[1] the lease (STRING: the holder's token)
  ARGV[1] token

  Returns 1 when released, else 0.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
