// Lua scripts of RedisEventChannel, run atomically on the Redis server.

/**
 * KEYS: stream, id counter, notification channel. ARGV: payload JSON, capacity, id floor.
 * Takes the next id (never at or below the floor: the highest id this instance has seen, from its
 * own publishes and reads and from every instance's notifications, so ids keep rising after a
 * Redis restart without persistence), appends the event with MAXLEN equal to the capacity
 * (exact, so the replay window is exactly `capacity` events), publishes the id.
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

/**
 * KEYS: stream, id counter. ARGV: the id last seen, events at most. Returns {0, the entries after
 * that id}; or, when the stream holds entries but the latest id is below that one (Redis
 * restarted empty and an instance began lower, or the id was never issued), {1, the oldest
 * entries held}. An empty stream is not behind: after a restart, until the next publish, no id
 * is known to Redis, and that publish takes the next id above the floor.
 */
export const readScript = `
local entries = redis.call('XRANGE', KEYS[1], '(0-' .. ARGV[1], '+', 'COUNT', ARGV[2])
if #entries > 0 then return {0, entries} end
local latest = tonumber(redis.call('GET', KEYS[2]) or '0')
if latest >= tonumber(ARGV[1]) then return {0, entries} end
entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[2])
if #entries == 0 then return {0, entries} end
return {1, entries}
`;
