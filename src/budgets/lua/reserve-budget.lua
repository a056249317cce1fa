--[[
  Reserves the expected cost of one model call against today's budgets, atomically over every scope.
  Every key shares the day's hash tag `{<prefix>:budget:<YYYY-MM-DD>}` (one Redis Cluster slot).

  KEYS[1] user spend    STRING  nano-USD spent + reserved today by one user
  KEYS[2] chat spend    STRING  the same for one chat
  KEYS[3] agent spend   STRING  the same for one agent
  KEYS[4] chat notice   STRING  set once the chat has been told that a limit was reached today

  ARGV[1] user limit    nano-USD; -1: no limit
  ARGV[2] chat limit
  ARGV[3] agent limit
  ARGV[4] reservation   nano-USD (integer)
  ARGV[5] ttl           seconds every key lives (past the end of the day)

  Returns { 0 } when reserved (every spend key grew by the reservation); otherwise nothing changes but the
  notice flag, and it returns { index of the first exhausted scope (1..3), 1 if the chat is to be told now else 0 }.

  A call is admitted while the spend is below the limit, so concurrent calls overshoot a limit by at most
  the reservation of the one call admitted last.
]]
local ttl = tonumber(ARGV[5])
for index = 1, 3 do
  local limit = tonumber(ARGV[index])
  if limit >= 0 then
    local spent = tonumber(redis.call('GET', KEYS[index]) or '0')
    if spent >= limit then
      local told = redis.call('SET', KEYS[4], '1', 'NX', 'EX', ttl)
      if told then return { index, 1 } end
      return { index, 0 }
    end
  end
end
local amount = tonumber(ARGV[4])
for index = 1, 3 do
  redis.call('INCRBY', KEYS[index], amount)
  redis.call('EXPIRE', KEYS[index], ttl)
end
return { 0 }
