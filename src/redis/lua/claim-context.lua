--[[
  A turn takes the group's unaddressed lines: the first call of a turn moves every line to the turn's claim, so
  that a turn of the same session running beside it does not see them again; a retry or a takeover of the same
  turn (same turn id) gets the same lines back from the claim. The claim starts with a marker, so a turn that found
  no line keeps finding none.

  KEYS[1] context LIST  the group's unaddressed lines, newest first (JSON)
  KEYS[2] claim   LIST  '.' then the turn's lines, newest first

  ARGV[1] claim ttl (seconds)

  Returns the turn's lines, newest first.
]]
if redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.call('LRANGE', KEYS[2], 1, -1)
end
local lines = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('RPUSH', KEYS[2], '.')
for _, line in ipairs(lines) do redis.call('RPUSH', KEYS[2], line) end
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return lines
