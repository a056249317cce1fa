--[[
  Helpers shared by the session queue's scripts (included with `--- @include "common"`).

  A pending entry (LIST `…:q`) and a running turn (HASH `…:t`) are strings of fields separated by the byte
  31 (unit separator), which JSON never carries unescaped, so the payload needs no decoding here:
    entry: kind ('m' message | 't' a turn put back), id, arrived ms, album id, flags ('b' behind), attempt, round, payload
    turn:  holder ('<worker>/<token>' | 'parked'), expiry ms, flags ('a' aborted), attempt, round, seq, body
  A turn's conversation (meta `c` when it was first claimed: the count of /new, see new-conversation.lua) rides
  before its body, `<conversation>\31<JSON>`, in a running turn and in a turn put back; a turn claimed while the
  session had none in Redis has none (`''`: the worker takes PostgreSQL's). JSON starts with `[` or `{`, so a
  value written before the field existed reads as having none.
]]
local SEP = '\31'

local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- `<conversation>\31<JSON>` → conversation, JSON; plain JSON → '', JSON
local function split_conversation(text)
  local conversation, json = string.match(text, '^([^\31]*)\31(.*)$')
  if conversation then return conversation, json end
  return '', text
end

local function with_conversation(conversation, json)
  if conversation == nil or conversation == '' then return json end
  return conversation .. SEP .. json
end

local function parse_entry(entry)
  local kind, id, arrived, album, flags, attempt, round, rest =
    string.match(entry, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  local conversation, payload = split_conversation(rest)
  return { kind = kind, id = id, arrived = tonumber(arrived) or 0, album = album, behind = flags == 'b',
    attempt = tonumber(attempt) or 1, round = tonumber(round) or 0, conversation = conversation, payload = payload }
end

local function entry_of(kind, id, arrived, album, flags, attempt, round, payload, conversation)
  return table.concat({ kind, id, arrived, album, flags, attempt, round, with_conversation(conversation, payload) }, SEP)
end

local function parse_turn(value)
  local holder, expiry, flags, attempt, round, seq, rest =
    string.match(value, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  local conversation, body = split_conversation(rest)
  return { holder = holder, expiry = tonumber(expiry) or 0, flags = flags, attempt = tonumber(attempt) or 1,
    round = tonumber(round) or 0, seq = tonumber(seq) or 0, conversation = conversation, body = body }
end

local function turn_value(turn)
  return table.concat({ turn.holder, turn.expiry, turn.flags, turn.attempt, turn.round, turn.seq, with_conversation(turn.conversation, turn.body) }, SEP)
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
