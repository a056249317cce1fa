--[[
  A sliding-window log per user (one sorted set of message ids by arrival time), so every gateway process counts
  against the same window. The message's dedupe key is the member: a platform redelivery is not counted twice.
  Refused messages are not counted; the first refusal in a window says so (`notify`).

  KEYS[1] the user's window ZSET  KEYS[2] the "told already" marker
  ARGV[1] window ms  ARGV[2] limit  ARGV[3] the message's id

  Returns { allowed 1|0, notify 1|0, wait ms }
]]
local key, notified = KEYS[1], KEYS[2]
local window, limit, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZSCORE', key, member) then return { 1, 0, 0 } end
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  return { 1, 0, 0 }
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = math.max(0, tonumber(oldest[2]) + window - now)
local first = redis.call('SET', notified, '1', 'NX', 'PX', window)
return { 0, first and 1 or 0, wait }
