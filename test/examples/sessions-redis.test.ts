import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { startExample } from "./support/start-example.ts";

// Two processes of the sessions example on two ports, sharing one Redis: what a load balancer
// spreading one browser's requests over both would see.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

const formType = { "Content-Type": "application/x-www-form-urlencoded" };
const exampleCommand = (url: string) => [
  "bun",
  "run",
  "example",
  "sessions",
  "--port",
  "0",
  "--redis",
  url,
];

async function login(baseUrl: string): Promise<string> {
  const response = await fetch(new URL("/login", baseUrl), {
    method: "POST",
    headers: formType,
    body: "username=ada&password=analytical-engine",
    redirect: "manual",
  });
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function account(baseUrl: string, cookie: string) {
  const response = await fetch(new URL("/account", baseUrl), {
    headers: { Cookie: cookie },
    redirect: "manual",
  });
  await response.arrayBuffer();
  return [response.status, response.headers.get("location") ?? response.headers.get("retry-after")];
}

test("a login on A is valid on B, a logout on B ends it on A, and a Redis expiry ends it on both", async () => {
  await using a = await startExample("sessions", exampleCommand(server.url));
  await using b = await startExample("sessions", exampleCommand(server.url));
  const first = await login(a.baseUrl);
  const seen = [await account(a.baseUrl, first), await account(b.baseUrl, first)];
  const logout = await fetch(new URL("/logout", b.baseUrl), {
    method: "POST",
    headers: { Cookie: first },
    redirect: "manual",
  });
  const afterLogout = [await account(a.baseUrl, first), await account(b.baseUrl, first)];
  // The expiry is the Redis key's own: bring it forward to now and both instances see it end.
  const second = await login(b.baseUrl);
  const before = await account(a.baseUrl, second);
  const probe = new RedisClient(server.url);
  for (const key of (await probe.send("KEYS", ["corral:sessions-example:s:*"])) as string[]) {
    await probe.send("PEXPIRE", [key, "1"]);
  }
  probe.close();
  while ((await account(b.baseUrl, second))[0] === 200) await Bun.sleep(5);
  expect({
    seen,
    logout: logout.status,
    afterLogout,
    before,
    expired: [await account(a.baseUrl, second), await account(b.baseUrl, second)],
  }).toEqual({
    seen: [
      [200, null],
      [200, null],
    ],
    logout: 303,
    afterLogout: [
      [303, "/login"],
      [303, "/login"],
    ],
    before: [200, null],
    expired: [
      [303, "/login"],
      [303, "/login"],
    ],
  });
});

test("five sessions per user across both instances: a sixth login on either ends the oldest", async () => {
  await using a = await startExample("sessions", exampleCommand(server.url));
  await using b = await startExample("sessions", exampleCommand(server.url));
  const cookies: string[] = [];
  for (let n = 0; n < 6; n++) cookies.push(await login((n % 2 === 0 ? a : b).baseUrl));
  const onA: unknown[] = [];
  for (const cookie of cookies) onA.push((await account(a.baseUrl, cookie))[0]);
  expect(onA).toEqual([303, 200, 200, 200, 200, 200]);
});

test("Redis down: the account page fails closed with 503 and Retry-After, then works again", async () => {
  await using own = await startRedisServer();
  await using example = await startExample("sessions", exampleCommand(own.url));
  const cookie = await login(example.baseUrl);
  await own.kill();
  const down = await account(example.baseUrl, cookie);
  await own.restart();
  let after = await account(example.baseUrl, cookie);
  while (after[0] === 503) after = await account(example.baseUrl, cookie);
  // The restarted server is empty (no persistence), so the old session is gone: sign in again.
  const again = await account(example.baseUrl, await login(example.baseUrl));
  expect({ down, after, again }).toEqual({
    down: [503, "1"],
    after: [303, "/login"],
    again: [200, null],
  });
});

test("Redis unreachable at start: one error line and exit code 1", async () => {
  const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = closed.port;
  closed.stop(true);
  // examples/run-example.ts itself, not through `bun run example`, whose script runner adds lines.
  const command = [
    "bun",
    "examples/run-example.ts",
    ...exampleCommand(`redis://127.0.0.1:${port}`).slice(3),
  ];
  const child = Bun.spawn(command, {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, errors] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  const lines = errors.trim().split("\n");
  expect({
    code,
    lines: lines.length,
    names: lines[0]!.includes(`cannot reach Redis at redis://127.0.0.1:${port}`),
  }).toEqual({
    code: 1,
    lines: 1,
    names: true,
  });
});
