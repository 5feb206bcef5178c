// Lua scripts of RedisEventChannel, run atomically on the Redis server.

/**
 * KEYS: stream, id counter, notification channel. ARGV: payload JSON, capacity, id floor.
 * Takes the next id (never at or below the floor: the highest id this instance has seen, so ids
 * keep rising after a Redis restart without persistence), appends the event with MAXLEN equal to
 * the capacity (exact, so the replay window is exactly `capacity` events), publishes the id.
 */
export const publishScript = `
local id = tonumber(redis.call('GET', KEYS[2]) or '0')
local floor = tonumber(ARGV[3])
if id < floor then id = floor end
id = id + 1
redis.call('SET', KEYS[2], id)
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '0-' .. id, 'p', ARGV[1])
redis.call('PUBLISH', KEYS[3], id)
return id
`;

/** KEYS: stream, id counter. Returns {latest id, oldest id held (0 when empty)}. */
export const boundsScript = `
local latest = tonumber(redis.call('GET', KEYS[2]) or '0')
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
local oldest = 0
if #first > 0 then oldest = tonumber(string.sub(first[1][1], 3)) end
return {latest, oldest}
`;
