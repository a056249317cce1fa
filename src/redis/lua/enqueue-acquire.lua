--[[
  enqueue, and the session's next turn claimed at once for a worker of the same process (ROLE=all), which has a
  free slot: the message is ready now (no debounce, no album to wait for). The claim is acquire's (acquire.lua),
  so a turn taken this way is held, renewed, taken back and released like any other; only the worker's wake-up,
  its look at the schedule and its acquire are saved. When nothing can be claimed, the shard's workers are woken
  as enqueue does.

  KEYS[1..5] as enqueue: seen, pending, meta, sched, wake
  KEYS[6] turns HASH   KEYS[7] alive HASH   KEYS[8] held SET (of the claiming worker)
  ARGV[1..9] as enqueue
  ARGV[10] lease ms  ARGV[11] mode  ARGV[12] debounce ms  ARGV[13] album wait ms  ARGV[14] new turn id
  ARGV[15] holder token  ARGV[16] most entries claimed

  Returns { 'duplicate' } | { 'queued', running } | { 'queued', running, <acquire's 'acquired' reply> }
]]
--- @include "common"
--- @include "take-back"
--- @include "enqueue-message"
--- @include "acquire-turn"
local limit = tonumber(ARGV[6])
local running = enqueue_message(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], limit, ARGV[7], ARGV[8], ARGV[9])
if running == nil then return { 'duplicate' } end
-- even with every slot taken: one may be held by a worker that died, and acquire takes it back
local claim = acquire_turn(KEYS[2], KEYS[3], KEYS[6], KEYS[4], KEYS[5], KEYS[7], KEYS[8], ARGV[7], limit, tonumber(ARGV[10]), ARGV[11],
  tonumber(ARGV[12]), tonumber(ARGV[13]), ARGV[14], ARGV[15], tonumber(ARGV[16]))
if claim[1] == 'acquired' then return { 'queued', tostring(running), unpack(claim) } end
if running < limit then redis.call('ZADD', KEYS[5], 0, '0') end
return { 'queued', tostring(running) }
