import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisConnection } from "../../src/redis/redis-connection.ts";
import { RedisUnavailableError } from "../../src/redis/redis-unavailable-error.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

function reasonOf(error: unknown): string {
  return error instanceof RedisUnavailableError ? error.reason : String(error);
}

test("unreachable at start is one RedisUnavailableError naming the URL without its password", async () => {
  const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = closed.port;
  closed.stop(true);
  const url = `redis://user:secret@127.0.0.1:${port}`;
  const error = await RedisConnection.open({ url, connectTimeoutMs: 200 }).catch(
    (caught: unknown) => caught,
  );
  expect({
    reason: reasonOf(error),
    hidesPassword: !String((error as Error).cause).includes("secret"),
    names: String((error as Error).cause).includes(`127.0.0.1:${port}`),
  }).toEqual({ reason: "unreachable", hidesPassword: true, names: true });
});

test("a refused connection at start is answered at once, not at the end of connectTimeoutMs", async () => {
  // Bun's client retries a refused connection by itself and says nothing: the open waited the
  // whole timeout (2 s by default) to say "no connection within 2000 ms".
  const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = closed.port;
  closed.stop(true);
  const error = await RedisConnection.open({
    url: `redis://127.0.0.1:${port}`,
    connectTimeoutMs: 60_000,
  }).catch((caught: unknown) => caught);
  expect([reasonOf(error), String((error as Error).cause)]).toEqual([
    "unreachable",
    `cannot reach Redis at redis://127.0.0.1:${port}: connection refused`,
  ]);
});

test("exactly maxPendingCommands may wait; one more is refused at once as busy", async () => {
  const redis = await RedisConnection.open({ url: server.url, maxPendingCommands: 2 });
  const results = await Promise.all(
    [0, 1, 2].map((n) =>
      redis.command("ECHO", [String(n)]).then(
        (reply) => reply,
        (error: unknown) => reasonOf(error),
      ),
    ),
  );
  expect({ results, rejectedBusy: redis.stats().rejectedBusy }).toEqual({
    results: ["0", "1", "busy"],
    rejectedBusy: 1,
  });
  redis.close();
});

test("a command with no answer within commandTimeoutMs fails as a timeout", async () => {
  const redis = await RedisConnection.open({ url: server.url, commandTimeoutMs: 50 });
  const pauser = new RedisClient(server.url);
  await pauser.connect();
  // CLIENT PAUSE holds every client's commands on the server for 300 ms.
  await pauser.send("CLIENT", ["PAUSE", "300", "ALL"]);
  const error = await redis.command("GET", ["key"]).catch((caught: unknown) => caught);
  while (redis.stats().pendingCommands > 0) await Bun.sleep(5);
  expect({ reason: reasonOf(error), timeouts: redis.stats().timeouts }).toEqual({
    reason: "timeout",
    timeouts: 1,
  });
  pauser.close();
  redis.close();
});

test("Redis refusing a command (OOM, READONLY) is a 503 as refused; other error replies stay Redis errors", async () => {
  await using own = await startRedisServer();
  const redis = await RedisConnection.open({ url: own.url });
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      (reply) => reply,
      (error: unknown) =>
        error instanceof RedisUnavailableError
          ? { reason: error.reason, status: error.status, retryAfter: error.headers["Retry-After"] }
          : (error as Error).name,
    );
  try {
    // Below what Redis already uses: under noeviction every write is refused with OOM.
    await redis.command("CONFIG", ["SET", "maxmemory-policy", "noeviction", "maxmemory", "1"]);
    const outOfMemory = await outcome(redis.command("SET", ["key", "value"]));
    const scriptOutOfMemory = await outcome(
      redis.command("EVAL", ["return redis.call('SET', KEYS[1], 'v')", "1", "key"]),
    );
    const readStillServed = await outcome(redis.command("GET", ["key"]));
    await redis.command("CONFIG", ["SET", "maxmemory", "0"]);
    // A replica of nobody reachable: it refuses writes with READONLY.
    await redis.command("REPLICAOF", ["127.0.0.1", "1"]);
    const readOnly = await outcome(redis.command("SET", ["key", "value"]));
    await redis.command("REPLICAOF", ["NO", "ONE"]);
    const unknownCommand = await outcome(redis.command("NO-SUCH-COMMAND", []));
    const refused = { reason: "refused", status: 503, retryAfter: "1" };
    expect({
      outOfMemory,
      scriptOutOfMemory,
      readStillServed,
      readOnly,
      unknownCommand,
      refusedByRedis: redis.stats().refusedByRedis,
    }).toEqual({
      outOfMemory: refused,
      scriptOutOfMemory: refused,
      readStillServed: null,
      readOnly: refused,
      unknownCommand: "RedisError",
      refusedByRedis: 3,
    });
  } finally {
    redis.close();
  }
});

test("option values that are not whole numbers >= 1 are a TypeError", async () => {
  const error = await RedisConnection.open({ url: server.url, maxPendingCommands: 0 }).catch(
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TypeError);
});
