--[[
  /stop: running turns are marked aborted (their holders learn it from the abort notice, or at their next renewal),
  everything pending is dropped. A turn waiting for an approval is not marked (nobody runs it to notice): the
  caller settles its approval as stopped and unparks it, and it resumes only to end as cancelled.

  KEYS[1] pending LIST  KEYS[2] meta HASH  KEYS[3] turns HASH  KEYS[4] sched ZSET
  ARGV[1] session key

  Returns { dropped count, running count, waiting count, running turn ids..., waiting turn ids... }
]]
--- @include "common"
local flat = redis.call('HGETALL', KEYS[3])
local running, waiting = {}, {}
for index = 1, #flat, 2 do
  local turn = parse_turn(flat[index + 1])
  if turn.holder == 'parked' then
    waiting[#waiting + 1] = flat[index]
  else
    running[#running + 1] = flat[index]
    if turn.flags ~= 'a' then
      turn.flags = 'a'
      redis.call('HSET', KEYS[3], flat[index], turn_value(turn))
    end
  end
end
local dropped = counter(redis.call('HGET', KEYS[2], 'p'))
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'w', 0, 'p', 0)
if #flat == 0 then redis.call('ZREM', KEYS[4], ARGV[1]) end
local result = { tostring(dropped), tostring(#running), tostring(#waiting) }
for _, id in ipairs(running) do result[#result + 1] = id end
for _, id in ipairs(waiting) do result[#result + 1] = id end
return result
