--[[
  Stores the platform message carrying a request's buttons, once posted.

  KEYS[1] the request (HASH, see approval-records.ts)
  ARGV[1] the prompt's message id

  Returns { status, outcome or '' }: a request decided while its prompt was being posted (the click came before
  the id was stored) is settled on the prompt by the poster, as approval-decide.lua's caller did not see it.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return { 'missing', '' } end
redis.call('HSET', KEYS[1], 'promptMessageId', ARGV[1])
local fields = redis.call('HMGET', KEYS[1], 'status', 'outcome')
return { fields[1] or 'missing', fields[2] or '' }
