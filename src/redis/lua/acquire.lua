--[[
  A worker claims the session's next turn, if a slot is free and the head may start: the head entry (a turn put
  back keeps its id: `resumed`), an album's parts together once its newest part has waited, messages collected
  behind a turn (collect mode), all of them (interrupt), or one (followup).

  KEYS[1] pending LIST   KEYS[2] meta HASH (w, n, p, la, s: seq of claims, hv: history version)
  KEYS[3] turns   HASH   turn id → running turn (see common.lua)
  KEYS[4] sched   ZSET   KEYS[5] wake ZSET   KEYS[6] alive HASH worker → beating until ms
  KEYS[7] held    SET    '<session>\31<turn>' held by this worker (a dead worker's turns are found by it)

  ARGV[1] session key  ARGV[2] slot limit  ARGV[3] lease ms  ARGV[4] mode (collect|followup|interrupt)
  ARGV[5] debounce ms  ARGV[6] album wait ms  ARGV[7] new turn id  ARGV[8] holder token  ARGV[9] most entries claimed

  Returns { 'acquired', turn id, body (JSON array of messages), resumed '1'|'0', history version, attempt, round }
        | { 'busy' } (every slot taken) | { 'empty' } | { 'waiting' } (a debounce, an album or a retry's backoff)
]]
--- @include "common"
--- @include "take-back"
--- @include "acquire-turn"
return acquire_turn(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4],
  tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8], tonumber(ARGV[9]))
