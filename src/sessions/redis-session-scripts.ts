// Lua scripts of RedisSessionStore. Each runs atomically on the Redis server, so two instances
// creating sessions at once cannot both take the last place. Time is the Redis server's
// (`TIME`), the one clock every instance shares.

/**
 * KEYS: session key, expiry index, the owner's sessions (a sorted set by expiry).
 * ARGV: data, lifetime ms, capacity, index member, most sessions per owner (0: no cap), prefix
 * of session keys. The owner's oldest sessions past the cap end first (revoked or expired ones
 * no longer count). Returns {1, 0, displaced} when created, {0, ms until the oldest expires, 0}
 * when full, {-1, 0, 0} on a repeat.
 */
export const createScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- The owner's set is scored in microseconds, each score above the last, so the oldest is first
-- even for sessions created within one millisecond.
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local displaced = 0
local maxPerOwner = tonumber(ARGV[5])
if maxPerOwner > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', nowUs)
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if redis.call('EXISTS', ARGV[6] .. member) == 0 then redis.call('ZREM', KEYS[3], member) end
  end
  while redis.call('ZCARD', KEYS[3]) >= maxPerOwner do
    local oldest = redis.call('ZPOPMIN', KEYS[3])
    displaced = displaced + redis.call('DEL', ARGV[6] .. oldest[1])
    redis.call('ZREM', KEYS[2], oldest[1])
  end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) - now, 0}
end
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {-1, 0, 0} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
if maxPerOwner > 0 then
  local score = nowUs + tonumber(ARGV[2]) * 1000
  local newest = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  if #newest > 0 and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
  redis.call('ZADD', KEYS[3], score, ARGV[4])
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return {1, 0, displaced}
`;

// A key whose PTTL is down to 0 still exists for under a millisecond: both scripts count it as
// expired and remove it, so that get and revoke agree on the same session.

/** KEYS: session key. Returns {data, ms left} or nil. */
export const getScript = `
local data = redis.call('GET', KEYS[1])
if not data then return nil end
local left = redis.call('PTTL', KEYS[1])
if left < 1 then
  redis.call('DEL', KEYS[1])
  return nil
end
return {data, left}
`;

/** KEYS: session key, expiry index. ARGV: index member. Returns 1 when a valid session ended. */
export const revokeScript = `
redis.call('ZREM', KEYS[2], ARGV[1])
local left = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
if left > 0 then return 1 end
return 0
`;
