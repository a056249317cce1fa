--[[
  One worker process's heartbeat, and (when the caller may judge) the claim of the workers that stopped beating.
  A worker killed at any instruction stops beating; whoever claims it expires the leases it held
  (expire-dead-leases.lua), so its turns are taken over in seconds instead of when their leases run out.
  The registry has a hash tag of its own: `{<prefix>:workers}` (one Redis Cluster slot).

  KEYS[1] alive   ZSET  workerId → its last heartbeat, ms on the Redis clock

  ARGV[1] workerId
  ARGV[2] deadAfterMs   a worker silent this long is dead
  ARGV[3] judge         1: claim the dead (the caller's own heartbeats have been steady for deadAfterMs); 0: only beat

  Returns the ids of the dead workers this call claimed (removed from the registry: one caller takes each over).
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
if ARGV[3] ~= '1' then return {} end
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if #dead > 0 then redis.call('ZREM', KEYS[1], unpack(dead)) end
return dead
