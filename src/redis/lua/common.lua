--[[
  Helpers shared by the session queue's scripts (included with `--- @include "common"`).

  A pending entry (LIST `…:q`) and a running turn (HASH `…:t`) are strings of fields separated by the byte
  31 (unit separator), which JSON never carries unescaped, so the payload needs no decoding here:
    entry: kind ('m' message | 't' a turn put back), id, arrived ms, album id, flags ('b' behind), attempt, round, payload
    turn:  holder ('<worker>/<token>' | 'parked'), expiry ms, flags ('a' aborted), attempt, round, seq, body
]]
local SEP = '\31'

local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function parse_entry(entry)
  local kind, id, arrived, album, flags, attempt, round, payload =
    string.match(entry, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  return { kind = kind, id = id, arrived = tonumber(arrived) or 0, album = album, behind = flags == 'b',
    attempt = tonumber(attempt) or 1, round = tonumber(round) or 0, payload = payload }
end

local function entry_of(kind, id, arrived, album, flags, attempt, round, payload)
  return table.concat({ kind, id, arrived, album, flags, attempt, round, payload }, SEP)
end

local function parse_turn(value)
  local holder, expiry, flags, attempt, round, seq, body =
    string.match(value, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  return { holder = holder, expiry = tonumber(expiry) or 0, flags = flags, attempt = tonumber(attempt) or 1,
    round = tonumber(round) or 0, seq = tonumber(seq) or 0, body = body }
end

local function turn_value(turn)
  return table.concat({ turn.holder, turn.expiry, turn.flags, turn.attempt, turn.round, turn.seq, turn.body }, SEP)
end

local function worker_of(holder)
  return string.match(holder, '^([^/]+)/')
end

local function counter(value)
  return tonumber(value or '0') or 0
end

-- The sessions waiting in a worker's preferred set (see enqueue.lua) go to the shard's schedule, due at `now`, and
-- the set is deleted; returns how many moved.
local function hand_to_shard(preferred, sched, now)
  local waiting = redis.call('ZRANGE', preferred, 0, -1)
  for _, session in ipairs(waiting) do redis.call('ZADD', sched, now, session) end
  if #waiting > 0 then redis.call('DEL', preferred) end
  return #waiting
end
