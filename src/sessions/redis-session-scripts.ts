// Lua scripts of RedisSessionStore. Each runs atomically on the Redis server, so two instances
// creating sessions at once cannot both take the last place. Time is the Redis server's
// (`TIME`), the one clock every instance shares.

/**
 * KEYS: session key, expiry index. ARGV: data, lifetime ms, capacity, index member.
 * Returns {1, 0} when created, {0, ms until the oldest expires} when full, {-1, 0} on a repeat.
 */
export const createScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) - now}
end
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {-1, 0} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
return {1, 0}
`;

/** KEYS: session key. Returns {data, ms left} or nil. */
export const getScript = `
local data = redis.call('GET', KEYS[1])
if not data then return nil end
return {data, redis.call('PTTL', KEYS[1])}
`;

/** KEYS: session key, expiry index. ARGV: index member. Returns 1 when a valid session ended. */
export const revokeScript = `
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`;
