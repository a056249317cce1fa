--[[
  A turn's attempt failed a retryable way: its reason is kept for the operator (the queue view's failed tab shows
  every attempt's reason when the turn ends as a dead letter), while its holder still holds it.

  KEYS[1] turns    HASH  turn id → running turn (see common.lua)
  KEYS[2] failures LIST  the turn's reasons, oldest first: 'at ms\31round\31attempt\31reason'
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] round  ARGV[4] attempt  ARGV[5] reason
  ARGV[6] how long the reasons are kept (ms; longer than the retries last)  ARGV[7] most reasons kept

  Returns { 'recorded', when the turn first failed (ms), now (ms) } | { 'lost' } (another holder has it now)
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value or parse_turn(value).holder ~= ARGV[2] then return { 'lost' } end
local now = now_ms()
redis.call('RPUSH', KEYS[2], table.concat({ now, ARGV[3], ARGV[4], ARGV[5] }, SEP))
local first = redis.call('LINDEX', KEYS[2], 0)
-- past the most kept, the second oldest goes: the first stays, it says when the turn began failing
if redis.call('LLEN', KEYS[2]) > tonumber(ARGV[7]) then
  redis.call('LSET', KEYS[2], 1, '')
  redis.call('LREM', KEYS[2], 1, '')
end
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return { 'recorded', string.match(first, '^([^\31]*)'), tostring(now) }
