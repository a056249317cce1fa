--[[
  An operator discards a dead letter: its messages are not answered.

  KEYS[1] dead index ZSET  KEYS[2] dead letter HASH
  ARGV[1] dead letter id

  Returns 'discarded' | 'gone' (retried or discarded already, or expired)
]]
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 'gone' end
redis.call('DEL', KEYS[2])
return 'discarded'
