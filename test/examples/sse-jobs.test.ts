import { expect, spyOn, test } from "bun:test";
import { ManualIo } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { createSseJobsApp, type SseJobsOptions } from "../../examples/sse-jobs/sse-jobs-app.ts";
import { readEventStream } from "../sse/event-stream-parser.ts";
import { startExample } from "./support/start-example.ts";

const stepMs = 100;

function startApp(options: SseJobsOptions = {}) {
  const io = new ManualIo();
  const app = createSseJobsApp({ io, stepMs, ...options });
  const quiet = spyOn(console, "log").mockImplementation(() => {});
  const server = app.listen({ port: 0 });
  quiet.mockRestore();
  return { io, app, server, [Symbol.asyncDispose]: () => app.stop() };
}

/** The `name=value` part of a response's Set-Cookie, to send back as `Cookie`. */
function cookieOf(response: Response): string {
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

/** One `progress` frame exactly as the server encodes it. */
function frame(id: number, job: number, percent: number): string {
  return `event: progress\nid: ${id}\ndata: {"job":${job},"percent":${percent}}\n\n`;
}

/** The frames of job `job` running alone: ids 1..11 for 0..100%. */
function frames(job: number, fromId: number, toId: number): string {
  let text = "";
  for (let id = fromId; id <= toId; id++) text += frame(id, job, (id - 1) * 10);
  return text;
}

/** One HTTP/1.1 chunk (RFC 9112 §7.1) holding `text`. */
function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

/** What follows the response head: the raw chunked body received so far. */
function bodyBytes(client: RawClient): string {
  const text = client.receivedText;
  return text.slice(text.indexOf("\r\n\r\n") + 4);
}

/**
 * `text` without heartbeat comments. serverSentEvents writes one on every wake that found nothing
 * for this stream, which includes other jobs' events, so their number depends on timing.
 */
function withoutHeartbeats(text: string): string {
  return text.replaceAll(": heartbeat\n\n", "");
}

function streamRequest(path: string, cookie: string, lastEventId?: number): string {
  const resume = lastEventId === undefined ? "" : `Last-Event-ID: ${lastEventId}\r\n`;
  return `GET ${path} HTTP/1.1\r\nHost: h\r\nCookie: ${cookie}\r\n${resume}\r\n`;
}

async function postJob(app: ReturnType<typeof createSseJobsApp>, cookie?: string) {
  const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
  return app.request("/jobs", { method: "POST", headers });
}

test("a job moves 10% per step on the App's clock, and the producer's timer stops at 100%", async () => {
  await using running = startApp();
  const { io, app } = running;
  const created = await postJob(app);
  expect(created.headers.get("set-cookie")).toMatch(
    /^sid=[A-Za-z0-9_-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict$/,
  );
  const cookie = cookieOf(created);
  expect([created.status, created.headers.get("location"), await created.json()]).toEqual([
    201,
    "/jobs/1",
    { id: 1, percent: 0, events: "/jobs/1/events" },
  ]);
  const seen: unknown[] = [];
  for (let step = 0; step <= 10; step++) {
    seen.push(await (await app.request("/jobs/1", { headers: { cookie } })).json());
    io.advance(stepMs);
  }
  expect(seen).toEqual(
    Array.from({ length: 11 }, (_, step) => ({ id: 1, percent: step * 10, done: step === 10 })),
  );
  expect(io.pendingTimers).toBe(0);
  const published = app.shared.producer.channel.ring.readAfter(0, 64).events;
  expect(published.map((event) => event.payload.percent)).toEqual(
    Array.from({ length: 11 }, (_, step) => step * 10),
  );
});

test("the stream sends exact chunked text/event-stream frames with ids; Last-Event-ID replays the rest", async () => {
  await using running = startApp();
  const { io, app, server } = running;
  const channel = app.shared.producer.channel;
  const cookie = cookieOf(await postJob(app));
  const first = await RawClient.connect(server.port);
  first.send(streamRequest("/jobs/1/events", cookie));
  await first.waitFor(() => first.receivedText.includes(frame(1, 1, 0)), "the 0% event");
  expect(first.receivedText.replace(/\r\nDate: [^\r]+/, "")).toBe(
    "HTTP/1.1 200 OK\r\nCache-Control: no-cache\r\n" +
      "Content-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n" +
      chunk(frame(1, 1, 0)),
  );
  for (const id of [2, 3]) {
    io.advance(stepMs);
    await first.waitFor(() => first.receivedText.includes(frame(id, 1, (id - 1) * 10)), `id ${id}`);
  }
  expect(bodyBytes(first)).toBe(
    chunk(frame(1, 1, 0)) + chunk(frame(2, 1, 10)) + chunk(frame(3, 1, 20)),
  );
  first.destroy();
  await waitUntil(() => channel.subscribers === 0, "the first stream to end");
  io.advance(stepMs);
  io.advance(stepMs);

  using again = await RawClient.connect(server.port);
  again.send(streamRequest("/jobs/1/events", cookie, 3));
  const missed = frame(4, 1, 30) + frame(5, 1, 40);
  await again.waitFor(() => again.receivedText.includes(missed), "the replay");
  // Both missed events go out in the first step's one flush: one chunk.
  expect(bodyBytes(again)).toBe(chunk(missed));
  // Six steps at once: the stream writes them in one step, ending at 100% with the last chunk.
  for (let step = 0; step < 6; step++) io.advance(stepMs);
  const response = await again.response();
  expect(response.text).toBe(frames(1, 4, 11));
  expect(bodyBytes(again)).toBe(`${chunk(missed)}${chunk(frames(1, 6, 11))}0\r\n\r\n`);
});

test("a new stream replays its job from the start; once the 100% event is had, a reconnect is a 204", async () => {
  await using running = startApp();
  const { io, app } = running;
  const cookie = cookieOf(await postJob(app));
  await postJob(app, cookie);
  for (let step = 0; step < 10; step++) io.advance(stepMs);
  const events = (lastEventId?: number) =>
    app.request("/jobs/2/events", {
      headers: {
        cookie,
        ...(lastEventId === undefined ? {} : { "last-event-id": `${lastEventId}` }),
      },
    });
  // Two jobs step together: job 1 has the odd ids, job 2 the even ones; job 2 sees only its own.
  let expected = "";
  for (let step = 0; step <= 10; step++) expected += frame(2 * step + 2, 2, step * 10);
  const whole = await events();
  expect([whole.status, await whole.text()]).toEqual([200, expected]);
  // A client that missed events still gets them, even after another stream delivered the end.
  const tail = await events(18);
  expect(await tail.text()).toBe(frame(20, 2, 90) + frame(22, 2, 100));
  // It has the 100% event (Last-Event-ID), or sends none after the end was delivered: 204, the
  // answer that stops an EventSource from reconnecting.
  const answers = [];
  for (const lastEventId of [22, 23, undefined]) {
    const response = await events(lastEventId);
    answers.push([
      response.status,
      response.headers.get("content-type"),
      response.headers.get("cache-control"),
      await response.text(),
    ]);
  }
  expect(answers).toEqual(Array(3).fill([204, null, "no-cache", ""]));
  expect(app.shared.producer.channel.subscribers).toBe(0);
});

test("a job's end not yet delivered to any stream is replayed to a new stream without Last-Event-ID", async () => {
  await using running = startApp();
  const { io, app } = running;
  const cookie = cookieOf(await postJob(app));
  for (let step = 0; step < 10; step++) io.advance(stepMs);
  // The JSON status does not count as delivering the events.
  await app.request("/jobs/1", { headers: { cookie } });
  const first = await app.request("/jobs/1/events", { headers: { cookie } });
  const again = await app.request("/jobs/1/events", { headers: { cookie } });
  expect([first.status, await first.text(), again.status]).toEqual([200, frames(1, 1, 11), 204]);
});

test("only the session that started a job may read it", async () => {
  await using running = startApp();
  const { app } = running;
  const owner = cookieOf(await postJob(app));
  const stranger = cookieOf(await postJob(app));
  const answer = async (path: string, cookie?: string) => {
    const response = await app.request(path, { headers: cookie ? { cookie } : {} });
    return `${response.status} ${await response.text()}`;
  };
  expect([
    await answer("/jobs/1/events"),
    await answer("/jobs/1/events", `sid=${"A".repeat(43)}`),
    await answer("/jobs/1/events", stranger),
    await answer("/jobs/1", stranger),
    await answer("/jobs/01/events", owner),
    await answer("/jobs/2/events", owner),
    await answer("/jobs/3/events", owner),
  ]).toEqual([
    "403 Forbidden: no session; POST /jobs first\n",
    "403 Forbidden: no session; POST /jobs first\n",
    "404 Not Found: no such job\n",
    "404 Not Found: no such job\n",
    "404 Not Found: no such job\n",
    "404 Not Found: no such job\n",
    "404 Not Found: no such job\n",
  ]);
});

test("logout revokes the session and ends its open stream at once; other sessions' streams go on", async () => {
  await using running = startApp();
  const { io, app, server } = running;
  const cookie = cookieOf(await postJob(app));
  const otherCookie = cookieOf(await postJob(app));
  using revoked = await RawClient.connect(server.port);
  revoked.send(streamRequest("/jobs/1/events", cookie));
  using other = await RawClient.connect(server.port);
  other.send(streamRequest("/jobs/2/events", otherCookie));
  await waitUntil(() => app.shared.producer.channel.subscribers === 2, "both streams");
  io.advance(stepMs);
  await revoked.waitFor(() => revoked.receivedText.includes(frame(3, 1, 10)), "job 1 at 10%");
  await other.waitFor(() => other.receivedText.includes(frame(4, 2, 10)), "job 2 at 10%");

  const logout = await app.request("/logout", { method: "POST", headers: { cookie } });
  expect([logout.status, logout.headers.get("set-cookie")]).toEqual([
    204,
    "sid=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Strict",
  ]);
  // Ended by the logout itself, not by the job's next event.
  const ended = await revoked.response();
  expect(withoutHeartbeats(ended.text)).toBe(frame(1, 1, 0) + frame(3, 1, 10));
  expect(app.shared.producer.find(1)?.percent).toBe(10);

  io.advance(stepMs);
  await other.waitFor(() => other.receivedText.includes(frame(6, 2, 20)), "job 2 at 20%");
  expect(other.closed).toBe(false);
  const refused = await app.request("/jobs/1/events", { headers: { cookie } });
  expect(refused.status).toBe(403);
});

test("an expired session ends its stream at the next wake", async () => {
  await using running = startApp({ sessionTtlMs: 350 });
  const { io, app, server } = running;
  const cookie = cookieOf(await postJob(app));
  using client = await RawClient.connect(server.port);
  client.send(streamRequest("/jobs/1/events", cookie));
  await client.waitFor(() => client.receivedText.includes(frame(1, 1, 0)), "the 0% event");
  for (const id of [2, 3, 4]) {
    io.advance(stepMs);
    await client.waitFor(() => client.receivedText.includes(frame(id, 1, (id - 1) * 10)), `${id}`);
  }
  io.advance(stepMs);
  const response = await client.response();
  expect(response.text).toBe(frames(1, 1, 4));
});

test("the job table holds maxJobs: one more is a 503 with Retry-After until a job finishes", async () => {
  await using running = startApp({ maxJobs: 2, stepMs: 1000 });
  const { io, app } = running;
  const cookie = cookieOf(await postJob(app));
  expect((await postJob(app, cookie)).status).toBe(201);
  for (let step = 0; step < 5; step++) io.advance(1000);
  const full = await postJob(app);
  expect([full.status, full.headers.get("retry-after"), await full.text()]).toEqual([
    503,
    "5",
    "Service Unavailable: every job slot is busy, retry later\n",
  ]);
  // The refused request made no session: no cookie went out, none is held.
  expect([full.headers.get("set-cookie"), app.shared.sessions.size]).toEqual([null, 1]);
  for (let step = 0; step < 5; step++) io.advance(1000);
  const replacing = await postJob(app, cookie);
  expect([replacing.status, ((await replacing.json()) as { id: number }).id]).toEqual([201, 3]);
  const statuses = [];
  for (const id of [1, 2, 3])
    statuses.push((await app.request(`/jobs/${id}`, { headers: { cookie } })).status);
  expect(statuses).toEqual([404, 200, 200]);
});

test("a full session set evicts its oldest session without a running job; none left is a 503", async () => {
  await using running = startApp({ maxSessions: 2, maxJobs: 4, sessionTtlMs: 60_000 });
  const { io, app } = running;
  const first = cookieOf(await postJob(app));
  const second = cookieOf(await postJob(app));
  // Both sessions have a running job: neither may be evicted.
  const full = await postJob(app);
  const fullAnswer = [full.status, full.headers.get("retry-after"), await full.text()];
  for (let step = 0; step < 10; step++) io.advance(stepMs);
  // Both jobs are over: a new session evicts the oldest one.
  const third = cookieOf(await postJob(app));
  const status = async (cookie: string, id: number) =>
    (await app.request(`/jobs/${id}`, { headers: { cookie } })).status;
  expect({
    fullAnswer,
    statuses: [await status(first, 1), await status(second, 2), await status(third, 3)],
    size: app.shared.sessions.size,
    evicted: app.shared.sessions.evicted,
  }).toEqual({
    fullAnswer: [503, "60", "Service Unavailable: too many sessions, retry later\n"],
    statuses: [403, 200, 200],
    size: 2,
    evicted: 1,
  });
  await app.request("/logout", { method: "POST", headers: { cookie: second } });
  io.advance(60_000);
  const stale = await app.request("/jobs/3", { headers: { cookie: third } });
  expect([stale.status, app.shared.sessions.evicted]).toEqual([403, 1]);
});

test("GET / serves the embedded page as a borrowed body and starts no session", async () => {
  await using running = startApp();
  const { app, server } = running;
  const page = await Bun.file(`${import.meta.dir}/../../examples/sse-jobs/page.html`).text();
  const response = await app.request("/");
  expect([
    response.status,
    response.headers.get("content-type"),
    response.headers.get("cache-control"),
    await response.text(),
  ]).toEqual([200, "text/html; charset=utf-8", "no-store", page]);
  expect(server.stats().bytesBorrowed).toBe(Buffer.byteLength(page));
  expect([response.headers.get("set-cookie"), app.shared.sessions.size]).toEqual([null, 0]);
  for (const needed of [
    'id="bar"',
    'id="percent"',
    'id="status"',
    "new EventSource(",
    '"progress"',
  ]) {
    expect(page).toContain(needed);
  }
});

test("bun run example sse-jobs: raw SSE frames over HTTP, Last-Event-ID resume, logout ends a stream", async () => {
  await using example = await startExample("sse-jobs");
  const created = await fetch(new URL("/jobs", example.baseUrl), { method: "POST" });
  const cookie = cookieOf(created);
  const post = (path: string) =>
    fetch(new URL(path, example.baseUrl), { method: "POST", headers: { cookie } });
  expect(await created.json()).toEqual({ id: 1, percent: 0, events: "/jobs/1/events" });

  const first = await RawClient.connect(example.port);
  first.send(streamRequest("/jobs/1/events", cookie));
  await first.waitFor(() => first.receivedText.includes('"percent":20}'), "20%", 3000);
  first.destroy();
  const ids = [...first.receivedText.matchAll(/\nid: (\d+)\n/g)].map((match) => Number(match[1]));
  const lastSeen = ids.at(-1)!;
  expect(ids).toEqual(Array.from({ length: lastSeen }, (_, index) => index + 1));

  using resumed = await RawClient.connect(example.port);
  resumed.send(streamRequest("/jobs/1/events", cookie, lastSeen));
  const response = await resumed.response(5000);
  expect([response.statusLine, response.header("content-type")]).toEqual([
    "HTTP/1.1 200 OK",
    "text/event-stream; charset=utf-8",
  ]);
  expect(withoutHeartbeats(response.text)).toBe(frames(1, lastSeen + 1, 11));
  expect(readEventStream(response.text, String(lastSeen)).lastEventId).toBe("11");
  // What an EventSource does when the stream ends: reconnect with its last id. Told 204, it stops.
  using reconnect = await RawClient.connect(example.port);
  reconnect.send(streamRequest("/jobs/1/events", cookie, 11));
  expect((await reconnect.response()).statusLine).toBe("HTTP/1.1 204 No Content");

  expect((await post("/jobs")).status).toBe(201);
  using revoked = await RawClient.connect(example.port);
  revoked.send(streamRequest("/jobs/2/events", cookie));
  await revoked.waitFor(() => revoked.receivedText.includes('"percent":0}'), "job 2 at 0%");
  expect((await post("/logout")).status).toBe(204);
  const ended = await revoked.response(1000);
  const percents = readEventStream(ended.text).events.map(
    (event) => JSON.parse(event.data).percent,
  );
  expect(percents.at(-1)).toBeLessThan(100);
  using refused = await RawClient.connect(example.port);
  refused.send(streamRequest("/jobs/2/events", cookie));
  expect((await refused.response()).statusLine).toBe("HTTP/1.1 403 Forbidden");
});
