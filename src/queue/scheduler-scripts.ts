/**
 * Lua scripts of the per-session scheduler. All state of one session lives under
 * `<base> = <prefix>:s:{<sessionKey>}` (one hash slot):
 *   :pending  ZSET entryId → arrival seq    (the truth: what still has to be answered)
 *   :payload  HASH entryId → JSON           (a message, or a requeued turn's JSON array of messages)
 *   :behind   SET  entryIds that arrived while every slot was taken (collected together later)
 *   :arrived  HASH entryId → ms             (debounce)
 *   :album    HASH entryId → media group id (Telegram albums: the parts arrive as separate updates, answered as one turn)
 *   :leases   ZSET turnId → lease expiry ms (slots in use; an expired lease is taken back)
 *   :holders  HASH turnId → holder token     (who holds the lease now: a taken-over holder's token no longer matches;
 *                                             `parked:<turnId>` while the turn waits for a person's approval)
 *   :turn:<id> HASH seq, body               (what a running turn claimed, requeued intact if its holder dies)
 *   :waiters  ZSET jobId → parked since ms  (BullMQ jobs parked as delayed until a slot frees)
 *   :aborted  SET  turnIds stopped by /stop (backstop for a missed pub/sub abort)
 *   :seq      counter of arrivals
 *   :rounds:<turnId>  rounds of attempts a failing turn has used (turn-worker.ts, TURN_RETRY)
 *   :ckpt:<turnId>    LIST of the turn's completed steps, JSON (turn-checkpoints.ts)
 *   :resume:<turnId>  an approval answer came while the turn was not parked yet: PARK hands it straight back
 * Entry ids of requeued turns are `turn:<turnId>`, so a turn keeps its id (and its idempotency) across takeovers.
 */

const COMMON = `
local base = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function starts_with(value, prefix) return string.sub(value, 1, #prefix) == prefix end
local function holds(turn_id, token) return redis.call('HGET', base .. ':holders', turn_id) == token end
local function is_parked(turn_id) return redis.call('HGET', base .. ':holders', turn_id) == 'parked:' .. turn_id end
-- Take back leases whose holder stopped renewing: the claimed messages go back to the head, same turn id.
local function purge_expired(now)
  local expired = redis.call('ZRANGEBYSCORE', base .. ':leases', '-inf', now)
  for _, turn_id in ipairs(expired) do
    redis.call('ZREM', base .. ':leases', turn_id)
    redis.call('HDEL', base .. ':holders', turn_id)
    local turn_key = base .. ':turn:' .. turn_id
    local record = redis.call('HMGET', turn_key, 'seq', 'body')
    redis.call('DEL', turn_key)
    local was_aborted = redis.call('SREM', base .. ':aborted', turn_id)
    if record[1] and was_aborted == 0 then
      redis.call('ZADD', base .. ':pending', record[1], 'turn:' .. turn_id)
      redis.call('HSET', base .. ':payload', 'turn:' .. turn_id, record[2])
    end
  end
end
`;

/** ARGV: base, seenKey, entryId, payload, limit, seenTtlSeconds, mediaGroupId ('' for none) → {'duplicate'} | {'registered'} | {'new', activeTurns} */
export const ENQUEUE = `${COMMON}
local seen_key, entry_id, payload, limit, ttl, media_group = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7]
local state = redis.call('GET', seen_key)
if state == 'queued' then return {'duplicate'} end
if state == 'registered' then return {'registered'} end
local now = now_ms()
purge_expired(now)
local active = redis.call('ZCARD', base .. ':leases')
local waiting = redis.call('ZCARD', base .. ':pending') - redis.call('SCARD', base .. ':behind')
local seq = redis.call('INCR', base .. ':seq')
redis.call('ZADD', base .. ':pending', seq, entry_id)
redis.call('HSET', base .. ':payload', entry_id, payload)
redis.call('HSET', base .. ':arrived', entry_id, now)
if media_group and media_group ~= '' then redis.call('HSET', base .. ':album', entry_id, media_group) end
if active + waiting >= limit then redis.call('SADD', base .. ':behind', entry_id) end
redis.call('SET', seen_key, 'registered', 'EX', ttl)
return {'new', tostring(active)}
`;

/** ARGV: base, seenKey, ttl — the job for the entry exists now; later redeliveries are plain duplicates. */
export const MARK_QUEUED = `
redis.call('SET', ARGV[2], 'queued', 'EX', ARGV[3])
return 1
`;

/**
 * ARGV: base, jobId, limit, leaseMs, mode, debounceMs, newTurnId, holderToken, albumWaitMs
 * An album at the head waits until its newest part is albumWaitMs old, then all its pending parts are one turn.
 * → {'empty'} | {'busy', waitMs} | {'debounce', waitMs} | {'acquired', turnId, bodyJson, jobIdToWake, resumed}
 * (`resumed` = '1' when the turn was taken back from a holder that stopped renewing or failed: it may have run before)
 */
export const ACQUIRE = `${COMMON}
local job_id, limit, lease_ms, mode, debounce_ms, new_turn_id, holder_token, album_wait_ms =
  ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), ARGV[7], ARGV[8], tonumber(ARGV[9] or '0')
local now = now_ms()
purge_expired(now)
local pending_key, payload_key, behind_key = base .. ':pending', base .. ':payload', base .. ':behind'
local active = redis.call('ZCARD', base .. ':leases')
local nothing_pending = redis.call('ZCARD', pending_key) == 0
if nothing_pending and active == 0 then
  redis.call('ZREM', base .. ':waiters', job_id)
  return {'empty'}
end
-- With turns running, a job parks even when nothing is pending: it is the guardian that takes a turn
-- back if its holder dies (the lease expires while it sleeps); a release wakes it to finish.
if nothing_pending or active >= limit then
  redis.call('ZADD', base .. ':waiters', 'NX', now, job_id)
  local first = redis.call('ZRANGE', base .. ':leases', 0, 0, 'WITHSCORES')
  return {'busy', tostring(math.max(0, tonumber(first[2]) - now))}
end
local head = redis.call('ZRANGE', pending_key, 0, 0, 'WITHSCORES')
local head_id, head_seq = head[1], head[2]
if debounce_ms > 0 and mode ~= 'followup' and not starts_with(head_id, 'turn:') then
  local newest = redis.call('ZRANGE', pending_key, -1, -1)[1]
  local arrived = tonumber(redis.call('HGET', base .. ':arrived', newest) or '0')
  if arrived + debounce_ms > now then
    redis.call('ZADD', base .. ':waiters', 'NX', now, job_id)
    return {'debounce', tostring(arrived + debounce_ms - now)}
  end
end
local album = (not starts_with(head_id, 'turn:')) and redis.call('HGET', base .. ':album', head_id) or false
local album_parts = {}
if album then
  local newest_part = 0
  for _, id in ipairs(redis.call('ZRANGE', pending_key, 0, -1)) do
    if redis.call('HGET', base .. ':album', id) == album then
      album_parts[#album_parts + 1] = id
      newest_part = math.max(newest_part, tonumber(redis.call('HGET', base .. ':arrived', id) or '0'))
    end
  end
  if newest_part + album_wait_ms > now then
    redis.call('ZADD', base .. ':waiters', 'NX', now, job_id)
    return {'debounce', tostring(newest_part + album_wait_ms - now)}
  end
end
local turn_id, body
local claimed = {head_id}
if album then
  turn_id = new_turn_id
  claimed = album_parts
  body = '[' .. table.concat(redis.call('HMGET', payload_key, unpack(claimed)), ',') .. ']'
elseif starts_with(head_id, 'turn:') then
  turn_id = string.sub(head_id, 6)
  body = redis.call('HGET', payload_key, head_id)
else
  turn_id = new_turn_id
  local collect_rest = mode == 'interrupt'
    or (mode == 'collect' and (debounce_ms > 0 or redis.call('SISMEMBER', behind_key, head_id) == 1))
  if collect_rest then
    local rest = redis.call('ZRANGE', pending_key, 1, -1)
    for _, id in ipairs(rest) do
      if starts_with(id, 'turn:') then break end
      if mode == 'collect' and debounce_ms == 0 and redis.call('SISMEMBER', behind_key, id) == 0 then break end
      claimed[#claimed + 1] = id
    end
  end
  body = '[' .. table.concat(redis.call('HMGET', payload_key, unpack(claimed)), ',') .. ']'
end
redis.call('ZREM', pending_key, unpack(claimed))
redis.call('HDEL', payload_key, unpack(claimed))
redis.call('SREM', behind_key, unpack(claimed))
redis.call('HDEL', base .. ':arrived', unpack(claimed))
redis.call('HDEL', base .. ':album', unpack(claimed))
redis.call('ZADD', base .. ':leases', now + lease_ms, turn_id)
redis.call('HSET', base .. ':holders', turn_id, holder_token)
redis.call('HSET', base .. ':turn:' .. turn_id, 'seq', head_seq, 'body', body)
redis.call('ZREM', base .. ':waiters', job_id)
local wake = ''
if active + 1 < limit and redis.call('ZCARD', pending_key) > 0 then
  local popped = redis.call('ZPOPMIN', base .. ':waiters')
  if popped[1] then wake = popped[1] end
end
return {'acquired', turn_id, body, wake, starts_with(head_id, 'turn:') and '1' or '0'}
`;

/** ARGV: base, turnId, leaseMs, holderToken → 'ok' | 'aborted' | 'lost' (expired, or taken over by another holder) */
export const RENEW = `${COMMON}
local turn_id, lease_ms, token = ARGV[2], tonumber(ARGV[3]), ARGV[4]
if not redis.call('ZSCORE', base .. ':leases', turn_id) or not holds(turn_id, token) then return 'lost' end
redis.call('ZADD', base .. ':leases', 'XX', now_ms() + lease_ms, turn_id)
if redis.call('SISMEMBER', base .. ':aborted', turn_id) == 1 then return 'aborted' end
return 'ok'
`;

/**
 * ARGV: base, turnId, holderToken → {'wake', jobId} (work remains, a parked job takes it) | {'orphan'} (work remains,
 * nobody parked) | {'idle', jobIds...} (nothing pending: parked jobs can finish) | {'lost'} (another holder has it now)
 */
export const RELEASE = `${COMMON}
local turn_id, token = ARGV[2], ARGV[3]
if not holds(turn_id, token) then return {'lost'} end
redis.call('ZREM', base .. ':leases', turn_id)
redis.call('HDEL', base .. ':holders', turn_id)
redis.call('DEL', base .. ':turn:' .. turn_id, base .. ':resume:' .. turn_id)
redis.call('SREM', base .. ':aborted', turn_id)
if redis.call('ZCARD', base .. ':pending') == 0 then
  local parked = redis.call('ZRANGE', base .. ':waiters', 0, -1)
  redis.call('DEL', base .. ':waiters')
  local result = {'idle'}
  for _, id in ipairs(parked) do result[#result + 1] = id end
  return result
end
local popped = redis.call('ZPOPMIN', base .. ':waiters')
if popped[1] then return {'wake', popped[1]} end
return {'orphan'}
`;

/** ARGV: base, turnId, holderToken → 'requeued' | 'dropped' (stopped meanwhile) | 'lost' (lease taken back or over) */
export const REQUEUE = `${COMMON}
local turn_id, token = ARGV[2], ARGV[3]
if not holds(turn_id, token) then return 'lost' end
local turn_key = base .. ':turn:' .. turn_id
local record = redis.call('HMGET', turn_key, 'seq', 'body')
redis.call('ZREM', base .. ':leases', turn_id)
redis.call('HDEL', base .. ':holders', turn_id)
redis.call('DEL', turn_key)
local was_aborted = redis.call('SREM', base .. ':aborted', turn_id)
if not record[1] then return 'lost' end
if was_aborted == 1 then return 'dropped' end
redis.call('ZADD', base .. ':pending', record[1], 'turn:' .. turn_id)
redis.call('HSET', base .. ':payload', 'turn:' .. turn_id, record[2])
return 'requeued'
`;

/**
 * ARGV: base → {droppedCount, activeCount, waitingCount, activeTurnIds..., waitingTurnIds..., parkedJobIds...}
 * A turn waiting for an approval is not marked aborted (nobody runs it to notice): the caller settles its
 * approval as stopped and unparks it, and it resumes only to end as cancelled.
 */
export const STOP = `${COMMON}
local active, waiting = {}, {}
for _, id in ipairs(redis.call('ZRANGE', base .. ':leases', 0, -1)) do
  if is_parked(id) then waiting[#waiting + 1] = id else
    active[#active + 1] = id
    redis.call('SADD', base .. ':aborted', id)
  end
end
local dropped = redis.call('ZCARD', base .. ':pending')
redis.call('DEL', base .. ':pending', base .. ':payload', base .. ':behind', base .. ':arrived', base .. ':album')
local parked = redis.call('ZRANGE', base .. ':waiters', 0, -1)
redis.call('DEL', base .. ':waiters')
local result = {tostring(dropped), tostring(#active), tostring(#waiting)}
for _, id in ipairs(active) do result[#result + 1] = id end
for _, id in ipairs(waiting) do result[#result + 1] = id end
for _, id in ipairs(parked) do result[#result + 1] = id end
return result
`;

/**
 * ARGV: base, turnId, holderToken, untilMs → 'parked' | 'resume' (answered meanwhile: requeued at the head) | 'aborted' (stopped meanwhile) | 'lost'
 * The turn keeps its slot and its claimed messages (the session's order holds) but no worker: its lease
 * lasts until the approval deadline and nobody renews it; UNPARK (an answer) or the deadline hands it to a
 * worker again, through the same path as a takeover.
 */
export const PARK = `${COMMON}
local turn_id, token, until_ms = ARGV[2], ARGV[3], tonumber(ARGV[4])
if not holds(turn_id, token) then return 'lost' end
if redis.call('SISMEMBER', base .. ':aborted', turn_id) == 1 then return 'aborted' end
if redis.call('DEL', base .. ':resume:' .. turn_id) == 1 then
  -- the answer came between the question and this call: expire the lease now, the next acquire resumes it
  redis.call('ZADD', base .. ':leases', 'XX', 0, turn_id)
  redis.call('HSET', base .. ':holders', turn_id, 'parked:' .. turn_id)
  return 'resume'
end
redis.call('ZADD', base .. ':leases', 'XX', until_ms, turn_id)
redis.call('HSET', base .. ':holders', turn_id, 'parked:' .. turn_id)
return 'parked'
`;

/**
 * ARGV: base, turnId → 'unparked' (its lease expires now: the next acquire resumes it) | 'not-parked' (still
 * running toward PARK, or its holder died: PARK, or the takeover, finds the answer)
 */
export const UNPARK = `${COMMON}
local turn_id = ARGV[2]
if not is_parked(turn_id) then
  redis.call('SET', base .. ':resume:' .. turn_id, '1', 'PX', 86400000)
  return 'not-parked'
end
redis.call('ZADD', base .. ':leases', 'XX', 0, turn_id)
return 'unparked'
`;

/** ARGV: base → ids of the running turns, now marked aborted (interrupt mode: the newest message wins). */
export const INTERRUPT = `
local base = ARGV[1]
local active = redis.call('ZRANGE', base .. ':leases', 0, -1)
for _, id in ipairs(active) do redis.call('SADD', base .. ':aborted', id) end
return active
`;

/** ARGV: base → {pendingCount, activeCount} */
export const DEPTH = `
local base = ARGV[1]
return {redis.call('ZCARD', base .. ':pending'), redis.call('ZCARD', base .. ':leases')}
`;
