--[[
  /new: the session starts a new conversation. Turns claimed from now on carry the new number (acquire.lua and
  enqueue.lua read `c` when they claim a turn; a turn put back keeps the number it started with), and each stored
  message carries its turn's number, so a turn running or still storing when /new came stays in the old one
  whatever order the writes reach PostgreSQL in. The history version moves on, so no cached history is used.

  KEYS[1] meta HASH (c: conversation, hv: history version)
  ARGV[1] the session's conversation in PostgreSQL (the floor when Redis has none: a fresh Redis, a lost one)
  ARGV[2] the new history version

  Returns the new conversation number.
]]
local current = tonumber(redis.call('HGET', KEYS[1], 'c') or '-1') or -1
local floor = tonumber(ARGV[1]) or 0
local next = math.max(current, floor) + 1
redis.call('HSET', KEYS[1], 'c', next, 'hv', ARGV[2])
return next
