--[[
  Records part of a turn's delivery (its computed answer, the ids of the parts out, the part about to be sent),
  only while the caller still holds the turn: a holder whose turn was taken over must not send, so it learns it
  here, before the platform call. Both keys are in the session's hash slot `{<sessionKey>}`.

  KEYS[1] holders   HASH  turnId → holder token (scheduler-scripts.ts)
  KEYS[2] delivery  HASH  result → the answer (JSON); stream:<name> → {sent, doubt} (JSON) per stream

  ARGV[1] turnId
  ARGV[2] holder token
  ARGV[3] ttl       seconds the delivery record lives
  ARGV[4..] field, value pairs to set

  Returns 1 when written, 0 when the caller no longer holds the turn (nothing written).
]]
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
