--[[
  Included by the scripts that look at a session's running turns (`--- @include "take-back"`, after "common").
  A turn whose lease expired, or whose worker stopped beating (the shard's `alive` hash), goes back to the head
  of the pending list with its id and its next attempt (unless it was stopped): the next acquire resumes it.
  A turn put back counts as waiting (it has a claim on the next slot).
  Returns the session's running, pending and waiting counts after it, the earliest expiry of the turns still held,
  and how many turns were taken back.
]]
local function take_back(turns_key, pending_key, alive_key, now, running, pending, waiting)
  local flat = redis.call('HGETALL', turns_key)
  local turns, workers = {}, {}
  for index = 1, #flat, 2 do
    local turn = parse_turn(flat[index + 1])
    turn.id = flat[index]
    turn.worker = worker_of(turn.holder)
    turns[#turns + 1] = turn
    if turn.worker then workers[#workers + 1] = turn.worker end
  end
  local beating = {}
  if #workers > 0 then
    local until_ms = redis.call('HMGET', alive_key, unpack(workers))
    for index, worker in ipairs(workers) do beating[worker] = (tonumber(until_ms[index] or '0') or 0) > now end
  end
  local gone, earliest = {}, nil
  for _, turn in ipairs(turns) do
    if turn.expiry <= now or (turn.worker and not beating[turn.worker]) then
      gone[#gone + 1] = turn
    elseif not earliest or turn.expiry < earliest then
      earliest = turn.expiry
    end
  end
  -- the oldest claim ends up first
  table.sort(gone, function(a, b) return a.seq > b.seq end)
  for _, turn in ipairs(gone) do
    redis.call('HDEL', turns_key, turn.id)
    running = running - 1
    if turn.flags ~= 'a' then
      redis.call('LPUSH', pending_key, entry_of('t', turn.id, 0, '', '', turn.attempt + 1, turn.round, turn.body, turn.conversation))
      pending = pending + 1
      waiting = waiting + 1
    end
  end
  return running, pending, waiting, earliest, #gone
end
