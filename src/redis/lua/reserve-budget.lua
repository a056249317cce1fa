--[[
  Reserves the expected cost of one model call against today's budgets, atomically over every scope.
  Every key shares the day's hash tag `{<prefix>:budget:<YYYY-MM-DD>}` (one Redis Cluster slot).

  KEYS[1] user budget   HASH  spent → nano-USD settled today, reserved → nano-USD held by calls in flight
  KEYS[2] chat budget   HASH  the same for one chat
  KEYS[3] agent budget  HASH  the same for one agent
  KEYS[4] chat notice   STRING set once the chat has been told that a limit was reached today

  ARGV[1] user limit    nano-USD; -1: no limit
  ARGV[2] chat limit
  ARGV[3] agent limit
  ARGV[4] reservation   nano-USD (integer)
  ARGV[5] ttl           seconds every key lives (past the end of the day)
  ARGV[6] final         1: a limit held only by calls in flight refuses too (the caller waited long enough)

  Returns
    { 0 }                      reserved: `reserved` of every scope grew by the reservation
    { 1, scope, notify }       refused: the scope's (1..3) settled spend reached its limit; notify 1 the first time today
    { 2, scope }               busy: the limit is reached only counting calls in flight; try again when they settle
  Nothing but the notice flag changes unless it reserves.

  A call is admitted while settled + reserved spend is below every limit, so concurrent calls overshoot a
  limit by at most the reservation of the one call admitted last, as long as each call costs no more than it
  reserved (the expected cost is built as an upper bound: src/budgets/expected-cost.ts).
]]
local ttl = tonumber(ARGV[5])
local busy = 0
for index = 1, 3 do
  local limit = tonumber(ARGV[index])
  if limit >= 0 then
    local values = redis.call('HMGET', KEYS[index], 'spent', 'reserved')
    local spent = tonumber(values[1] or '0')
    local reserved = tonumber(values[2] or '0')
    if spent >= limit or (ARGV[6] == '1' and spent + reserved >= limit) then
      if redis.call('SET', KEYS[4], '1', 'NX', 'EX', ttl) then return { 1, index, 1 } end
      return { 1, index, 0 }
    end
    if busy == 0 and spent + reserved >= limit then busy = index end
  end
end
if busy > 0 then return { 2, busy } end
local amount = tonumber(ARGV[4])
for index = 1, 3 do
  redis.call('HINCRBY', KEYS[index], 'reserved', amount)
  redis.call('EXPIRE', KEYS[index], ttl)
end
return { 0 }
