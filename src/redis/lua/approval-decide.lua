--[[
  The compare-and-set that makes each approval button work once, whichever gateway process receives the click.

  KEYS[1] the request (HASH, see approval-records.ts)
  ARGV[1] new status  ARGV[2] decided by  ARGV[3] now ms

  Returns { 'ok' } | { 'settled', current status } | { 'missing' }
]]
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return { 'missing' } end
if current ~= 'pending' then return { 'settled', current } end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decidedBy', ARGV[2], 'decidedAtMs', ARGV[3])
return { 'ok' }
