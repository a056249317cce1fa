--[[
  Interrupt mode: the newest message wins. The running turns are marked aborted; nothing pending is dropped.

  KEYS[1] turns HASH
  Returns the ids of the turns marked.
]]
--- @include "common"
local flat = redis.call('HGETALL', KEYS[1])
local marked = {}
for index = 1, #flat, 2 do
  local turn = parse_turn(flat[index + 1])
  if turn.holder ~= 'parked' then
    marked[#marked + 1] = flat[index]
    if turn.flags ~= 'a' then
      turn.flags = 'a'
      redis.call('HSET', KEYS[1], flat[index], turn_value(turn))
    end
  end
end
return marked
