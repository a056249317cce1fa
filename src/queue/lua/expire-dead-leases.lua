--[[
  Expires, now, the leases of one session held by workers that died: a holder token begins with its worker's
  id and '/' (session-scheduler.ts). The next acquire then takes the turns back (purge_expired in
  scheduler-scripts.ts: the claimed messages return to the head with the same turn id) instead of waiting for
  the leases to run out. Parked turns (holder `parked:<turnId>`) belong to no worker and are left alone.
  Both keys are in the session's hash slot `{<sessionKey>}`.

  KEYS[1] leases    ZSET  turnId → lease expiry ms
  KEYS[2] holders   HASH  turnId → holder token

  ARGV[1..n] ids of dead workers

  Returns the number of leases expired.
]]
local expired = 0
for _, turn_id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local holder = redis.call('HGET', KEYS[2], turn_id)
  if holder then
    for index = 1, #ARGV do
      local owner = ARGV[index] .. '/'
      if string.sub(holder, 1, #owner) == owner then
        redis.call('ZADD', KEYS[1], 'XX', 0, turn_id)
        expired = expired + 1
        break
      end
    end
  end
end
return expired
