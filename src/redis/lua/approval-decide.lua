--[[
  The compare-and-set that makes each approval button work once, whichever gateway process receives the click.

  KEYS[1] the request (HASH, see approval-records.ts)
  ARGV[1] new status  ARGV[2] decided by  ARGV[3] now ms  ARGV[4] the line the prompt shows once settled

  Returns { 'ok', prompt message id or '' } | { 'settled', current status } | { 'missing' }
  The prompt's id is read in the same step: a prompt posted before the decision is settled by the decider, one
  whose id is stored after it by the poster (approval-prompt-set.lua), never by both or neither.
]]
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return { 'missing' } end
if current ~= 'pending' then return { 'settled', current } end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decidedBy', ARGV[2], 'decidedAtMs', ARGV[3], 'outcome', ARGV[4])
return { 'ok', redis.call('HGET', KEYS[1], 'promptMessageId') or '' }
