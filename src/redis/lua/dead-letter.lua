--[[
  A turn failed every round of attempts: its messages are kept as a dead letter of its shard, with its error and
  every attempt's reason, for an operator to retry or discard (the queue view's failed tab). Fenced: only the
  turn's holder writes it. The turn itself is released afterwards as any other (release.lua).

  KEYS[1] turns       HASH  turn id → running turn (see common.lua)
  KEYS[2] failures    LIST  the turn's reasons (see record-failure.lua)
  KEYS[3] dead index  ZSET  the shard's dead letter ids → when they were written
  KEYS[4] dead letter HASH  session, body (JSON array of the messages), error, at, attempt, round, reasons
  ARGV[1] turn id (the dead letter's id)  ARGV[2] holder token  ARGV[3] session key  ARGV[4] error
  ARGV[5] how long a dead letter is kept (ms)

  Index entries older than ARGV[5] are dropped here: their hashes expired.
  Returns 'dead' | 'lost'
]]
--- @include "common"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 'lost' end
local turn = parse_turn(value)
if turn.holder ~= ARGV[2] then return 'lost' end
local now = now_ms()
local reasons = redis.call('LRANGE', KEYS[2], 0, -1)
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[4], 'session', ARGV[3], 'body', turn.body, 'error', ARGV[4], 'at', now, 'attempt', turn.attempt,
  'round', turn.round, 'reasons', table.concat(reasons, '\30'))
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))
return 'dead'
