import { afterAll, beforeAll, expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { readEventStream } from "../sse/event-stream-parser.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type RunningExample, startExample } from "./support/start-example.ts";

// Two processes of the sse-jobs example on two ports sharing one Redis: a job started on A is
// followed from B (whose own producer is idle, so every event B sends was published on A and
// woke B's waiting stream through Redis), and a reconnect to either continues where it stopped.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server[Symbol.asyncDispose]());

const startInstance = () =>
  startExample("sse-jobs", [
    "bun",
    "run",
    "example",
    "sse-jobs",
    "--port",
    "0",
    "--redis",
    server.url,
  ]);

async function startJob(instance: RunningExample) {
  const response = await fetch(new URL("/jobs", instance.baseUrl), { method: "POST" });
  const { id } = (await response.json()) as { id: number };
  return { id, cookie: response.headers.get("set-cookie")!.split(";")[0]! };
}

function streamRequest(path: string, cookie: string, lastEventId?: number): string {
  const resume = lastEventId === undefined ? "" : `Last-Event-ID: ${lastEventId}\r\n`;
  return `GET ${path} HTTP/1.1\r\nHost: h\r\nCookie: ${cookie}\r\n${resume}\r\n`;
}

/** The progress events of a stream: [id, job, percent] each. */
function progressOf(text: string): [number, number, number][] {
  return readEventStream(text).events.map((event) => {
    const { job, percent } = JSON.parse(event.data) as { job: number; percent: number };
    return [Number(event.lastEventId), job, percent];
  });
}

/** Consecutive ids from `firstId`, for `job` going from `fromPercent` to 100%. */
function expected(firstId: number, job: number, fromPercent: number): [number, number, number][] {
  const steps = (100 - fromPercent) / 10 + 1;
  return Array.from({ length: steps }, (_, step) => [firstId + step, job, fromPercent + step * 10]);
}

test("a job started on A is followed on B to 100%; a reconnect to A or B after the end is 204", async () => {
  await using a = await startInstance();
  await using b = await startInstance();
  const { id, cookie } = await startJob(a);
  const state = await fetch(new URL(`/jobs/${id}`, b.baseUrl), { headers: { cookie } });
  expect(state.status).toBe(200);

  using follower = await RawClient.connect(b.port);
  follower.send(streamRequest(`/jobs/${id}/events`, cookie));
  const stream = await follower.response(10_000);
  const events = progressOf(stream.text);
  const lastId = events.at(-1)![0];

  const ends: string[] = [];
  for (const [instance, lastEventId] of [
    [a, lastId],
    [b, lastId],
  ] as const) {
    using again = await RawClient.connect(instance.port);
    again.send(streamRequest(`/jobs/${id}/events`, cookie, lastEventId));
    ends.push((await again.response(10_000)).statusLine);
  }
  // Without Last-Event-ID, 204 once B has recorded (in Redis) that it delivered the 100% event.
  let withoutId = "";
  while (withoutId !== "HTTP/1.1 204 No Content") {
    using fresh = await RawClient.connect(a.port);
    fresh.send(streamRequest(`/jobs/${id}/events`, cookie));
    withoutId = (await fresh.response(10_000)).statusLine;
  }
  expect({ status: stream.statusLine, events, ends }).toEqual({
    status: "HTTP/1.1 200 OK",
    events: expected(events[0]![0], id, 0),
    ends: ["HTTP/1.1 204 No Content", "HTTP/1.1 204 No Content"],
  });
});

test("a stream on B cut at 30% resumes on A with Last-Event-ID: the rest, nothing twice", async () => {
  await using a = await startInstance();
  await using b = await startInstance();
  const { id, cookie } = await startJob(a);

  const first = await RawClient.connect(b.port);
  first.send(streamRequest(`/jobs/${id}/events`, cookie));
  await first.waitFor(() => first.receivedText.includes('"percent":30}'), "30%", 10_000);
  first.destroy();
  const head = progressOf(first.receivedText.slice(first.receivedText.indexOf("\r\n\r\n") + 4));
  const lastSeen = head.at(-1)![0];

  using resumed = await RawClient.connect(a.port);
  resumed.send(streamRequest(`/jobs/${id}/events`, cookie, lastSeen));
  const rest = progressOf((await resumed.response(10_000)).text);
  expect([...head, ...rest]).toEqual(expected(head[0]![0], id, 0));
});

test("sessions are shared: another client gets 404 for the job on B, a logout on B is seen on A", async () => {
  await using a = await startInstance();
  await using b = await startInstance();
  const { id, cookie } = await startJob(a);
  const stranger = await startJob(b);
  const status = async (instance: RunningExample, who: string) =>
    (await fetch(new URL(`/jobs/${id}`, instance.baseUrl), { headers: { cookie: who } })).status;
  const before = [
    await status(a, cookie),
    await status(b, cookie),
    await status(b, stranger.cookie),
  ];
  const logout = await fetch(new URL("/logout", b.baseUrl), {
    method: "POST",
    headers: { cookie },
  });
  expect({ before, logout: logout.status, after: await status(a, cookie) }).toEqual({
    before: [200, 200, 404],
    logout: 204,
    after: 403,
  });
});

test("a burst of 40 job starts on one instance: exactly its 8 slots run, the rest are 503 with Retry-After", async () => {
  // Each start waits for Redis (a session, an id) after its check: checked then taken after the
  // await, 200 at once started 26 jobs, and 32 more were 500s that left a session behind.
  await using a = await startInstance();
  const answers = await Promise.all(
    Array.from({ length: 40 }, () => fetch(new URL("/jobs", a.baseUrl), { method: "POST" })),
  );
  const statuses = answers.map((answer) => answer.status);
  const refused = answers.filter((answer) => answer.status === 503);
  expect({
    started: statuses.filter((status) => status === 201).length,
    refused: refused.length,
    retryAfter: refused.every((answer) => Number(answer.headers.get("retry-after")) >= 1),
    refusedWithCookie: refused.filter((answer) => answer.headers.has("set-cookie")).length,
  }).toEqual({ started: 8, refused: 32, retryAfter: true, refusedWithCookie: 0 });
});
