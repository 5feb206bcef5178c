import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { TodoStore } from "../../examples/todos/todo-store.ts";
import { createTodosApp } from "../../examples/todos/todos-app.ts";
import { startExample } from "./support/start-example.ts";

const problemType = "application/problem+json";
const json = { "content-type": "application/json" };

function todosApp(maxTodos?: number) {
  const lines: string[] = [];
  const app = createTodosApp({
    store: new TodoStore(":memory:", maxTodos),
    logSink: (text) => void lines.push(...text.trim().split("\n")),
  });
  return Object.assign(app, { lines, [Symbol.asyncDispose]: () => app.stop() });
}

async function post(app: ReturnType<typeof todosApp>, body: unknown) {
  return app.request("/api/todos", { method: "POST", headers: json, body: JSON.stringify(body) });
}

test("create, read, page, patch and delete through app.request()", async () => {
  await using app = todosApp();
  const created = await post(app, { title: "milk" });
  expect([created.status, created.headers.get("location"), await created.json()]).toEqual([
    201,
    "/api/todos/1",
    { id: 1, title: "milk", done: false },
  ]);
  for (let index = 2; index <= 25; index++)
    await post(app, { title: `todo ${index}`, done: index % 2 === 0 });
  type Page = { items: unknown[]; next: number | null };
  const first = (await (await app.request("/api/todos")).json()) as Page;
  const second = (await (await app.request(`/api/todos?cursor=${first.next}`)).json()) as Page;
  const small = await (await app.request("/api/todos?limit=1&cursor=24")).json();
  expect([first.items.length, first.next, second.items.length, second.next, small]).toEqual([
    20,
    20,
    5,
    null,
    { items: [{ id: 25, title: "todo 25", done: false }], next: null },
  ]);
  const patched = await app.request("/api/todos/1", {
    method: "PATCH",
    headers: json,
    body: JSON.stringify({ done: true }),
  });
  expect([patched.status, await patched.json()]).toEqual([
    200,
    { id: 1, title: "milk", done: true },
  ]);
  const deleted = await app.request("/api/todos/1", { method: "DELETE" });
  const gone = await app.request("/api/todos/1");
  expect([
    deleted.status,
    await deleted.text(),
    gone.status,
    gone.headers.get("content-type"),
    await gone.json(),
  ]).toEqual([
    204,
    "",
    404,
    problemType,
    { type: "about:blank", title: "Not Found", status: 404, detail: "no todo has this id" },
  ]);
});

test("bad JSON is a 400, broken rules a 422 listing each problem, unknown ids and paths a JSON 404", async () => {
  await using app = todosApp();
  const badJson = await app.request("/api/todos", {
    method: "POST",
    headers: json,
    body: '{"title":',
  });
  const broken = await post(app, { title: "", done: "yes", colour: "red" });
  const notObject = await post(app, ["milk"]);
  const longest = await post(app, { title: "é".repeat(200) });
  const tooLong = await post(app, { title: "é".repeat(201) });
  const badLimit = await app.request("/api/todos?limit=101");
  const unknownPath = await app.request("/api/nothing");
  const badId = await app.request("/api/todos/abc");
  const wrongMethod = await app.request("/api/todos", { method: "PUT" });
  const answers = await Promise.all(
    [badJson, broken, notObject, longest, tooLong, badLimit, unknownPath, badId, wrongMethod].map(
      async (response) => [
        response.status,
        response.headers.get("content-type"),
        await response.json(),
      ],
    ),
  );
  expect(answers).toEqual([
    [400, problemType, expect.objectContaining({ status: 400, title: "Bad Request" })],
    [
      422,
      problemType,
      {
        type: "about:blank",
        title: "Unprocessable Content",
        status: 422,
        detail: "the todo breaks the rules listed in errors",
        errors: [
          { path: "/colour", message: "is not a field of a todo" },
          { path: "/title", message: "must be 1-200 characters" },
          { path: "/done", message: "must be true or false" },
        ],
      },
    ],
    [
      422,
      problemType,
      expect.objectContaining({ errors: [{ path: "", message: "must be a JSON object" }] }),
    ],
    [201, "application/json", { id: 1, title: "é".repeat(200), done: false }],
    [
      422,
      problemType,
      expect.objectContaining({
        errors: [{ path: "/title", message: "must be 1-200 characters" }],
      }),
    ],
    [
      400,
      problemType,
      expect.objectContaining({ detail: "limit must be a whole number from 1 to 100" }),
    ],
    [404, problemType, { type: "about:blank", title: "Not Found", status: 404 }],
    [404, problemType, expect.objectContaining({ detail: "no todo has this id" })],
    [405, problemType, { type: "about:blank", title: "Method Not Allowed", status: 405 }],
  ]);
});

test("a body that is not application/json is a 415: a form on another site cannot create or change a todo", async () => {
  await using app = todosApp();
  // What an HTML form with enctype="text/plain" on any site sends, without a CORS preflight.
  const crossSite = {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "https://evil.example" },
    body: '{"title":"pwn="}',
  };
  const refused = await app.request("/api/todos", crossSite);
  const asForm = await app.request("/api/todos", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: '{"title":"x"}',
  });
  const untyped = await app.request("/api/todos", { method: "POST", body: '{"title":"x"}' });
  const withParameters = await app.request("/api/todos", {
    method: "POST",
    headers: { "content-type": "Application/JSON; charset=utf-8" },
    body: '{"title":"milk"}',
  });
  const patched = await app.request("/api/todos/1", {
    method: "PATCH",
    headers: { "content-type": "text/plain" },
    body: '{"done":true}',
  });
  const answers = await Promise.all(
    [refused, asForm, untyped, withParameters, patched].map(async (response) => [
      response.status,
      response.headers.get("accept"),
      ((await response.json()) as { detail?: string; done?: boolean }).detail ?? "created",
    ]),
  );
  expect(answers).toEqual([
    [415, "application/json", "the body must be application/json"],
    [415, "application/json", "the body must be application/json"],
    [415, "application/json", "the body must be application/json"],
    [201, null, "created"],
    [415, "application/json", "the body must be application/json"],
  ]);
  const list = (await (await app.request("/api/todos")).json()) as { items: unknown[] };
  expect(list.items).toEqual([{ id: 1, title: "milk", done: false }]);
});

test("the list holds at most maxTodos (1000 by default): one more is a 507 until one is deleted", async () => {
  expect(new TodoStore().maxTodos).toBe(1000);
  expect(() => new TodoStore(":memory:", 0)).toThrow(RangeError);
  await using app = todosApp(3);
  const statuses: number[] = [];
  for (let index = 1; index <= 4; index++)
    statuses.push((await post(app, { title: `t${index}` })).status);
  const full = await post(app, { title: "one more" });
  expect([...statuses, full.status, await full.json()]).toEqual([
    201,
    201,
    201,
    507,
    507,
    expect.objectContaining({
      status: 507,
      detail: "the list is full (3 todos): delete one to add another",
    }),
  ]);
  expect((await app.request("/api/todos/2", { method: "DELETE" })).status).toBe(204);
  const again = await post(app, { title: "fits again" });
  expect([again.status, ((await again.json()) as { id: number }).id]).toEqual([201, 4]);
});

test("request ids, secure headers, ETags with 304, compression over 1 KiB and one log line each", async () => {
  await using app = todosApp();
  for (let index = 0; index < 30; index++)
    await post(app, { title: `a todo with a title ${index}` });
  const list = await app.request("/api/todos", { headers: { "accept-encoding": "br, gzip" } });
  const tag = list.headers.get("etag")!;
  const again = await app.request("/api/todos", {
    headers: { "accept-encoding": "br, gzip", "if-none-match": tag },
  });
  const small = await app.request("/api/todos?limit=1");
  expect([
    list.status,
    list.headers.get("content-encoding"),
    ((await list.json()) as { items: unknown[] }).items.length,
    again.status,
    again.headers.get("etag") === tag,
    small.headers.get("content-encoding"),
    [list, again, small].every((response) =>
      /^[0-9a-f-]{36}$/.test(response.headers.get("x-request-id") ?? ""),
    ),
    [list, again, small].every(
      (response) => response.headers.get("x-content-type-options") === "nosniff",
    ),
  ]).toEqual([200, "br", 20, 304, true, null, true, true]);
  await Bun.sleep(0);
  await new Promise((resolve) => setImmediate(resolve));
  const logged = app.lines.map((line) => JSON.parse(line));
  expect(logged.length).toBe(33);
  expect(logged.at(-2)).toEqual(
    expect.objectContaining({ method: "GET", path: "/api/todos", status: 304, outcome: "success" }),
  );
});

test("the page is served in its embedded form: a content-hash ETag, 304, its br variant, one Vary", async () => {
  await using app = todosApp();
  const page = await app.request("/", { headers: { "accept-encoding": "br" } });
  const tag = page.headers.get("etag") ?? "";
  const again = await app.request("/", {
    headers: { "accept-encoding": "br", "if-none-match": tag },
  });
  const plain = await app.request("/");
  const script = await app.request("/page.js");
  expect({
    page: [page.status, page.headers.get("content-encoding"), page.headers.get("vary")],
    tagIsAHash: /^"[^"]{16,}"$/.test(tag.replace(/-br"$/, '"')),
    again: again.status,
    plain: [plain.headers.get("content-type"), (await plain.text()).includes("<html")],
    script: [script.status, script.headers.get("content-type")],
  }).toEqual({
    page: [200, "br", "Accept-Encoding"],
    tagIsAHash: true,
    again: 304,
    plain: ["text/html; charset=utf-8", true],
    script: [200, "text/javascript; charset=utf-8"],
  });
});

test("over the wire: CORS on every answer (errors included), preflight, rate limit and a --db file", async () => {
  const scratch = mkdtempSync(join(tmpdir(), "corral-todos-"));
  const origin = "https://app.example";
  try {
    const command = [
      "bun",
      "run",
      "example",
      "todos",
      "--port",
      "0",
      "--db",
      join(scratch, "todos.db"),
    ];
    {
      // The preflight is answered before the rate limit: 6 of these 8 requests count.
      await using example = await startExample("todos", [
        ...command,
        "--cors-origin",
        origin,
        "--rate-limit",
        "6",
      ]);
      using client = await RawClient.connect(example.port);
      const requests = [
        `POST /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"title":"milk"}`,
        `POST /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"title":`,
        `POST /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"title":""}`,
        `GET /api/todos/99 HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\n\r\n`,
        `PUT /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Length: 0\r\n\r\n`,
        `OPTIONS /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n`,
        "GET /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: https://evil.example\r\n\r\n",
        `GET /api/todos HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nConnection: close\r\n\r\n`,
      ];
      client.send(requests.join(""));
      const responses = await client.responses(requests.length);
      expect(
        responses.map((response) => [
          response.status,
          response.header("access-control-allow-origin"),
          response.header("vary")?.includes("Origin"),
          response.header("retry-after"),
          response.header("ratelimit")?.startsWith('"default";r='),
        ]),
      ).toEqual([
        [201, origin, true, undefined, true],
        [400, origin, true, undefined, true],
        [422, origin, true, undefined, true],
        [404, origin, true, undefined, true],
        [405, origin, true, undefined, true],
        [204, origin, true, undefined, undefined],
        [200, undefined, true, undefined, true],
        [429, origin, true, "10", true],
      ]);
      const output = example.child.stdout.getReader();
      let text = "";
      while (text.split("\n").length <= 8) {
        const read = await output.read();
        if (read.done) break;
        text += new TextDecoder().decode(read.value);
      }
      output.releaseLock();
      const statuses = text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).status);
      expect(statuses).toEqual([201, 400, 422, 404, 405, 204, 200, 429]);
    }
    // The file keeps the todos across a restart.
    await using restarted = await startExample("todos", command);
    const listed = await (await fetch(`${restarted.baseUrl}api/todos`)).json();
    expect(listed).toEqual({ items: [{ id: 1, title: "milk", done: false }], next: null });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
