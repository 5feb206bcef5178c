import { expect, spyOn, test } from "bun:test";
import { type App, ManualIo } from "corral";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import {
  createSessionsApp,
  type SessionsAppOptions,
} from "../../examples/sessions/sessions-app.ts";
import { createSseJobsApp, type SseJobsOptions } from "../../examples/sse-jobs/sse-jobs-app.ts";
import { heldSessions } from "../examples/support/held-sessions.ts";

const stepMs = 100;
const loginHeaders = "Content-Type: application/x-www-form-urlencoded\r\n";

function listen<Shared, Locals extends object>(app: App<Shared, Locals>) {
  const quiet = spyOn(console, "log").mockImplementation(() => {});
  const server = app.listen({ port: 0 });
  quiet.mockRestore();
  return { port: server.port, [Symbol.asyncDispose]: () => app.stop() };
}

function startSseJobs(options: SseJobsOptions) {
  const io = new ManualIo();
  const app = createSseJobsApp({ io, stepMs, ...options });
  return { io, app, server: listen(app) };
}

function startSessions(options: SessionsAppOptions) {
  const app = createSessionsApp(new ManualIo(), options);
  return { app, server: listen(app) };
}

/** One request on its own connection, as a stranger's script or a browser tab would send it. */
async function send(port: number, head: string, body = ""): Promise<WireResponse> {
  using client = await RawClient.connect(port);
  client.send(`${head}Host: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return await client.response();
}

const cookieOf = (response: WireResponse) => (response.header("set-cookie") ?? "").split(";")[0]!;
const postJob = (port: number, cookie?: string) =>
  send(port, `POST /jobs HTTP/1.1\r\n${cookie === undefined ? "" : `Cookie: ${cookie}\r\n`}`);
const login = (port: number, username: string, password: string, origin?: string) =>
  send(
    port,
    `POST /login HTTP/1.1\r\n${loginHeaders}${origin === undefined ? "" : `Origin: ${origin}\r\n`}`,
    `username=${username}&password=${password}`,
  );
const account = (port: number, cookie: string) =>
  send(port, `GET /account HTTP/1.1\r\nCookie: ${cookie}\r\n`);

test("sse-jobs: anonymous page loads start no session, so a flood of them leaves room for a real user", async () => {
  const { app, server } = startSseJobs({ maxSessions: 4 });
  await using _ = server;
  const statuses: Record<number, number> = {};
  for (let index = 0; index < 50; index++) {
    const page = await send(server.port, "GET / HTTP/1.1\r\n");
    statuses[page.status] = (statuses[page.status] ?? 0) + 1;
  }
  const sessionsAfterFlood = app.shared.sessions.size;
  // The side client: a browser tab that starts a job.
  const created = await postJob(server.port);
  expect({ statuses, sessionsAfterFlood, created: created.status }).toEqual({
    statuses: { 200: 50 },
    sessionsAfterFlood: 0,
    created: 201,
  });
});

test("sse-jobs: strangers who keep starting jobs only evict sessions whose jobs are over", async () => {
  const { io, app, server } = startSseJobs({ maxSessions: 4, maxJobs: 2 });
  await using _ = server;
  const strangerStatuses: Record<number, number> = {};
  const stranger = async () => {
    const response = await postJob(server.port);
    strangerStatuses[response.status] = (strangerStatuses[response.status] ?? 0) + 1;
  };
  // Five rounds of two jobs, each from a new session, each round run to its end: ten sessions.
  for (let round = 0; round < 5; round++) {
    await stranger();
    await stranger();
    for (let step = 0; step < 10; step++) io.advance(stepMs);
  }
  // The side client starts a job, then the strangers go on while it runs.
  const created = await postJob(server.port);
  const cookie = cookieOf(created);
  for (let attempt = 0; attempt < 3; attempt++) await stranger();
  const own = await send(server.port, `GET /jobs/11 HTTP/1.1\r\nCookie: ${cookie}\r\n`);
  expect({
    created: created.status,
    own: [own.status, own.status === 200 ? JSON.parse(own.text).percent : own.text],
    strangerStatuses,
    sessions: app.shared.sessions.size,
    evicted: app.shared.sessions.evicted,
  }).toEqual({
    created: 201,
    own: [200, 0],
    // Ten jobs, then one more beside the side client's; two slots, both running: a 503.
    strangerStatuses: { 201: 11, 503: 2 },
    sessions: 4,
    evicted: 8,
  });
});

test("sessions: one account signing in over and over holds at most its cap; another user signs in", async () => {
  const { app, server } = startSessions({ maxSessions: 8 });
  await using _ = server;
  const cookies: string[] = [];
  for (let index = 0; index < 30; index++) {
    cookies.push(cookieOf(await login(server.port, "ada", "analytical-engine")));
  }
  const sizeAfterFlood = heldSessions(app.shared);
  // The side client: another user, who must still get in.
  const grace = await login(server.port, "grace", "compiler-1952");
  const graceAccount = await account(server.port, cookieOf(grace));
  const oldest = await account(server.port, cookies[0]!);
  const newest = await account(server.port, cookies.at(-1)!);
  expect({
    sizeAfterFlood,
    grace: [grace.status, grace.header("location"), graceAccount.status],
    oldest: [oldest.status, oldest.header("location")],
    newest: newest.status,
  }).toEqual({
    sizeAfterFlood: 5,
    grace: [303, "/account", 200],
    oldest: [303, "/login"],
    newest: 200,
  });
  // Every login past the fifth revoked ada's oldest session.
  expect(app.shared.perUser.displaced).toBe(25);
});

test("sessions: a login posted from another site is a 403 and starts no session", async () => {
  const { app, server } = startSessions({});
  await using _ = server;
  const forged = await login(server.port, "ada", "analytical-engine", "http://evil.example");
  const sandboxed = await login(server.port, "ada", "analytical-engine", "null");
  const sizeAfterForgeries = heldSessions(app.shared);
  // The side client: the site's own login form, posted by a browser.
  const own = await login(server.port, "grace", "compiler-1952", "http://127.0.0.1");
  expect({
    forged: [forged.status, forged.header("set-cookie")],
    sandboxed: [sandboxed.status, sandboxed.header("set-cookie")],
    sizeAfterForgeries,
    own: [own.status, own.header("location")],
    size: heldSessions(app.shared),
  }).toEqual({
    forged: [403, undefined],
    sandboxed: [403, undefined],
    sizeAfterForgeries: 0,
    own: [303, "/account"],
    size: 1,
  });
});
