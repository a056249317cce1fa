--[[
  Fields of a turn's delivery record (the computed answer, the send about to happen, the parts sent), written only
  by the turn's current holder.

  KEYS[1] turns HASH  KEYS[2] the turn's delivery record HASH  KEYS[3] the shard's alive HASH
  ARGV[1] turn id  ARGV[2] holder token  ARGV[3] ttl seconds
  ARGV[4] '1' when the fields announce a send (an intent), else ''
  ARGV[5..] field, value, field, value…

  An intent is refused ('expired', nothing written) once the lease has run out or the holder's worker stopped
  beating, by the same test the acquire's take-back uses: another worker may take the turn over any moment and
  settle this part, so the send must not begin (issue 53: a stalled holder's late send doubled an answer).

  Returns 'ok' | 'lost' (another holder, or none) | 'expired'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 'lost' end
local turn = parse_turn(value)
if turn.holder ~= ARGV[2] then return 'lost' end
if ARGV[4] == '1' then
  local now = now_ms()
  local worker = worker_of(turn.holder)
  local beating_until = worker and (tonumber(redis.call('HGET', KEYS[3], worker) or '0') or 0) or now + 1
  if turn.expiry <= now or beating_until <= now then return 'expired' end
end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 'ok'
