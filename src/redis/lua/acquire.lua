--[[
  A worker claims the session's next turn, if a slot is free and the head may start: the head entry (a turn put
  back keeps its id: `resumed`), an album's parts together once its newest part has waited, messages collected
  behind a turn (collect mode), all of them (interrupt), or one (followup).

  KEYS[1] pending LIST   KEYS[2] meta HASH (w, n, p, la, s: seq of claims, hv: history version, c: conversation)
  KEYS[3] turns   HASH   turn id → running turn (see common.lua)
  KEYS[4] sched   ZSET   KEYS[5] wake ZSET   KEYS[6] alive HASH worker → beating until ms
  KEYS[7] held    SET    '<session>\31<turn>' held by this worker (a dead worker's turns are found by it)

  ARGV[1] session key  ARGV[2] slot limit  ARGV[3] lease ms  ARGV[4] mode (collect|followup|interrupt)
  ARGV[5] debounce ms  ARGV[6] album wait ms  ARGV[7] new turn id  ARGV[8] holder token  ARGV[9] most entries claimed

  Returns { 'acquired', turn id, body (JSON array of messages), resumed '1'|'0', history version, attempt, round,
                  conversation ('' unknown: see common.lua) }
        | { 'busy' } (every slot taken) | { 'empty' } | { 'waiting' } (a debounce, an album or a retry's backoff)
]]
--- @include "common"
--- @include "take-back"
local pending_key, meta_key, turns_key, sched, wake, alive, held = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local session, limit, lease_ms, mode = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local debounce_ms, album_wait_ms, new_turn_id, holder, max_claim = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8], tonumber(ARGV[9])
local now = now_ms()
local meta = redis.call('HMGET', meta_key, 'w', 'n', 'p', 'la', 's', 'hv', 'c')
local waiting, running, pending, last_arrival = counter(meta[1]), counter(meta[2]), counter(meta[3]), counter(meta[4])
local seq, history_version = counter(meta[5]), meta[6] or ''
local earliest, taken_back = nil, 0
if running > 0 then
  running, pending, waiting, earliest, taken_back = take_back(turns_key, pending_key, alive, now, running, pending, waiting)
end

local function save_counts()
  redis.call('HSET', meta_key, 'w', waiting, 'n', running, 'p', pending)
end
local function look_again_at(ms)
  redis.call('ZADD', sched, ms, session)
end

if running >= limit or pending == 0 then
  if taken_back > 0 then save_counts() end
  if running > 0 then look_again_at(earliest) else redis.call('ZREM', sched, session) end
  return { running > 0 and 'busy' or 'empty' }
end

local popped = pending == 1
local raw
if popped then raw = { redis.call('LPOP', pending_key) } else raw = redis.call('LRANGE', pending_key, 0, max_claim - 1) end
local entries = {}
for index, value in ipairs(raw) do
  entries[index] = parse_entry(value)
  entries[index].raw = value
end
local head = entries[1]

local function not_yet(ms)
  if popped then redis.call('LPUSH', pending_key, raw[1]) end
  if taken_back > 0 then save_counts() end
  look_again_at(ms)
  return { 'waiting' }
end

local claimed = { 1 }
if head.kind == 't' then
  -- a turn put back for a retry waits out its backoff (`arrived` holds when it may run again)
  if head.arrived > now then return not_yet(head.arrived) end
elseif head.album ~= '' then
  claimed = {}
  local newest = 0
  for index, entry in ipairs(entries) do
    if entry.kind == 'm' and entry.album == head.album then
      claimed[#claimed + 1] = index
      if entry.arrived > newest then newest = entry.arrived end
    end
  end
  if newest + album_wait_ms > now then return not_yet(newest + album_wait_ms) end
else
  if debounce_ms > 0 and mode ~= 'followup' and last_arrival + debounce_ms > now then
    return not_yet(last_arrival + debounce_ms)
  end
  local collect_rest = mode == 'interrupt' or (mode == 'collect' and (debounce_ms > 0 or head.behind))
  if collect_rest then
    for index = 2, #entries do
      local entry = entries[index]
      if entry.kind == 't' then break end
      if mode == 'collect' and debounce_ms == 0 and not entry.behind then break end
      claimed[#claimed + 1] = index
    end
  end
end

-- take the claimed entries off the list
if not popped then
  local prefix = true
  for position, index in ipairs(claimed) do if index ~= position then prefix = false end end
  if prefix then
    redis.call('LTRIM', pending_key, #claimed, -1)
  else
    for _, index in ipairs(claimed) do redis.call('LREM', pending_key, 1, entries[index].raw) end
  end
end

-- a new turn belongs to the conversation the session is in now; a turn put back keeps the one it started in
local turn_id, body, attempt, round, resumed, conversation = new_turn_id, nil, 1, 0, '0', meta[7] or ''
if head.kind == 't' then
  turn_id, body, attempt, round, resumed, conversation = head.id, head.payload, head.attempt, head.round, '1', head.conversation
else
  local payloads = {}
  for _, index in ipairs(claimed) do payloads[#payloads + 1] = entries[index].payload end
  body = '[' .. table.concat(payloads, ',') .. ']'
end
for _, index in ipairs(claimed) do
  local entry = entries[index]
  if entry.kind == 't' or not entry.behind then waiting = waiting - 1 end
end
pending = pending - #claimed
running = running + 1
seq = seq + 1
local expiry = now + lease_ms
redis.call('HSET', turns_key, turn_id, turn_value({ holder = holder, expiry = expiry, flags = '', attempt = attempt, round = round, seq = seq, conversation = conversation, body = body }))
redis.call('SADD', held, session .. SEP .. turn_id)
redis.call('HSET', meta_key, 'w', waiting, 'n', running, 'p', pending, 's', seq)
if running < limit and pending > 0 then
  -- another slot is free and work waits: another worker may take it now
  look_again_at(now)
  redis.call('ZADD', wake, 0, '0')
else
  -- the backstop: the session is looked at again when this lease would expire (a release comes first)
  look_again_at(math.min(expiry, earliest or expiry))
end
return { 'acquired', turn_id, body, resumed, history_version, tostring(attempt), tostring(round), conversation }
