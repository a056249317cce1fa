--[[
  Included by enqueue and enqueue-acquire (after "common"): the message joins its session, registered once (the
  dedupe key), appended to the pending list; the session is scheduled when one of its slots is free (a release
  schedules it otherwise). See enqueue.lua for the keys and the arguments.
  Returns nil for a duplicate, else the session's running turns before it.
]]
local function enqueue_message(seen, pending_key, meta_key, sched, seen_ttl, entry_id, arrived, album, payload, limit, session, ready_at, ready_mode)
  if not redis.call('SET', seen, 'q', 'NX', 'EX', seen_ttl) then return nil end
  local meta = redis.call('HMGET', meta_key, 'w', 'n', 'p')
  local waiting, running, pending = counter(meta[1]), counter(meta[2]), counter(meta[3])
  -- a message that arrives while every slot is taken (or promised) is collected into a later turn
  local behind = running + waiting >= limit
  redis.call('RPUSH', pending_key, entry_of('m', entry_id, arrived, album, behind and 'b' or '', 1, 0, payload))
  redis.call('HSET', meta_key, 'w', behind and waiting or waiting + 1, 'p', pending + 1, 'la', arrived)
  if running < limit then
    if ready_mode == 'LT' then
      redis.call('ZADD', sched, 'LT', ready_at, session)
    else
      redis.call('ZADD', sched, ready_at, session)
    end
  end
  return running
end
