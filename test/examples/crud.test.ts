import { describe, expect, test } from "bun:test";
import { ManualIo } from "corral";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { type CrudAppOptions, createCrudApp } from "../../examples/crud/crud-app.ts";
import { noteLimits } from "../../examples/crud/crud-limits.ts";
import { parseEntityTagCondition } from "../../examples/crud/entity-tag.ts";
import {
  crudAppLimits,
  maxNoteJsonBytes,
  maxPageJsonBytes,
} from "../../examples/crud/output-bounds.ts";
import { startExample } from "./support/start-example.ts";

type CrudApp = ReturnType<typeof createCrudApp>;

/** An App for one test, stopped by `await using`. */
function crudApp(options: CrudAppOptions = {}): CrudApp & AsyncDisposable {
  const app = createCrudApp(options);
  return Object.assign(app, { [Symbol.asyncDispose]: () => app.stop() });
}

const jsonType = { "Content-Type": "application/json" };

function send(
  app: CrudApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const text = body === undefined || typeof body === "string" ? body : JSON.stringify(body);
  return app.request(path, {
    method,
    headers: { ...(text === undefined ? {} : jsonType), ...headers },
    ...(text === undefined ? {} : { body: text }),
  });
}

/** The parts of a response the tests compare as one structure. */
async function outline(response: Response) {
  const text = await response.text();
  const type = response.headers.get("content-type");
  return {
    status: response.status,
    etag: response.headers.get("etag"),
    body: type?.includes("json") ? JSON.parse(text) : text,
  };
}

interface ProblemDocument {
  readonly detail: string;
  readonly errors?: unknown[];
}

interface PageDocument {
  readonly items: ReadonlyArray<{ readonly id: string; readonly title: string }>;
  readonly next: string | null;
}

function problem(status: number, title: string, detail: string, errors?: unknown[]) {
  return { title, status, detail, ...(errors === undefined ? {} : { errors }) };
}

const emoji = "\u{1F600}"; // four bytes of UTF-8 and of JSON: the widest allowed character

describe("create and read", () => {
  test("POST answers 201 with Location and a strong ETag; GET reads the note back", async () => {
    const io = new ManualIo();
    await using app = crudApp({ io });
    const created = await send(app, "POST", "/notes", { title: "milk", body: "2 litres" });
    const note = {
      id: "1",
      title: "milk",
      body: "2 litres",
      pinned: false,
      version: 1,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    expect([created.headers.get("location"), created.headers.get("content-type")]).toEqual([
      "/notes/1",
      "application/json",
    ]);
    expect(await outline(created)).toEqual({ status: 201, etag: '"1-1"', body: note });
    expect(await outline(await send(app, "GET", "/notes/1"))).toEqual({
      status: 200,
      etag: '"1-1"',
      body: note,
    });
    const head = await send(app, "HEAD", "/notes/1");
    expect([head.status, head.headers.get("etag"), await head.text()]).toEqual([200, '"1-1"', ""]);
  });

  test("an unknown or malformed id is a 404 problem document", async () => {
    await using app = crudApp();
    await send(app, "POST", "/notes", { title: "one" });
    const notFound = problem(404, "Not Found", "there is no note with this id");
    for (const path of ["/notes/2", "/notes/01", "/notes/abc", "/notes/99999999999999999"]) {
      const response = await send(app, "GET", path);
      expect([path, response.headers.get("content-type"), await response.json()]).toEqual([
        path,
        "application/problem+json",
        notFound,
      ]);
    }
    const patch = await send(app, "PATCH", "/notes/1", { title: "x" });
    expect([patch.status, patch.headers.get("allow")]).toEqual([
      405,
      "GET, PUT, DELETE, HEAD, OPTIONS",
    ]);
  });

  test("If-None-Match answers 304 with the ETag and no body (weak comparison, lists, *)", async () => {
    await using app = crudApp();
    await send(app, "POST", "/notes", { title: "one" });
    const statuses: Array<[string, number, string | null, string]> = [];
    for (const value of ['"1-1"', 'W/"1-1"', '"9-9", "1-1"', "*", '"1-2"', 'W/"1-2"']) {
      const response = await send(app, "GET", "/notes/1", undefined, { "If-None-Match": value });
      const body = await response.text();
      statuses.push([value, response.status, response.headers.get("etag"), body === "" ? "" : "…"]);
    }
    expect(statuses).toEqual([
      ['"1-1"', 304, '"1-1"', ""],
      ['W/"1-1"', 304, '"1-1"', ""],
      ['"9-9", "1-1"', 304, '"1-1"', ""],
      ["*", 304, '"1-1"', ""],
      ['"1-2"', 200, '"1-1"', "…"],
      ['W/"1-2"', 200, '"1-1"', "…"],
    ]);
  });
});

describe("update and delete with If-Match", () => {
  test("PUT needs If-Match: missing is 428, stale or weak is 412, a list or * matches", async () => {
    const io = new ManualIo();
    await using app = crudApp({ io });
    await send(app, "POST", "/notes", { title: "draft" });
    io.advance(1500);
    const change = (ifMatch: string | undefined, title: string) =>
      send(app, "PUT", "/notes/1", { title }, ifMatch === undefined ? {} : { "If-Match": ifMatch });

    expect(await outline(await change(undefined, "x"))).toEqual({
      status: 428,
      etag: null,
      body: problem(
        428,
        "Precondition Required",
        "this request must be conditional: send If-Match with the note's ETag from a GET",
      ),
    });
    const stale = problem(
      412,
      "Precondition Failed",
      "the note has changed since that ETag; GET it again and retry",
    );
    for (const value of ['"1-2"', 'W/"1-1"', '"1-1" , W/"x"x', '"2-1"', ""]) {
      const response = await change(value, "x");
      const expected = value.includes("x") ? 400 : 412;
      expect([value, response.status]).toEqual([value, expected]);
      if (expected === 412) expect(await response.json()).toEqual(stale);
    }
    const listed = await change('"7-7", , "1-1"', "second");
    expect(await outline(listed)).toMatchObject({
      status: 200,
      etag: '"1-2"',
      body: { title: "second", version: 2, updatedAt: "2026-01-01T00:00:01.500Z" },
    });
    expect((await change('"1-1"', "lost update")).status).toBe(412);
    const any = await change("*", "third");
    expect(await outline(any)).toMatchObject({
      status: 200,
      etag: '"1-3"',
      body: { title: "third", createdAt: "2026-01-01T00:00:00.000Z" },
    });
    expect((await send(app, "GET", "/notes/1")).headers.get("etag")).toBe('"1-3"');
  });

  test("preconditions are checked only for an existing note, and before the body", async () => {
    await using app = crudApp();
    await send(app, "POST", "/notes", { title: "one" });
    const missing = await send(app, "PUT", "/notes/2", { title: "x" }, { "If-Match": "*" });
    const staleAndInvalid = await send(
      app,
      "PUT",
      "/notes/1",
      { title: 1 },
      { "If-Match": '"1-9"' },
    );
    const currentButInvalid = await send(app, "PUT", "/notes/1", "{", { "If-Match": '"1-1"' });
    expect([missing.status, staleAndInvalid.status, currentButInvalid.status]).toEqual([
      404, 412, 400,
    ]);
  });

  test("DELETE answers 204, honours If-Match when sent, and the note is gone", async () => {
    await using app = crudApp();
    await send(app, "POST", "/notes", { title: "one" });
    await send(app, "POST", "/notes", { title: "two" });
    const stale = await send(app, "DELETE", "/notes/1", undefined, { "If-Match": '"1-2"' });
    const matched = await send(app, "DELETE", "/notes/1", undefined, { "If-Match": '"1-1"' });
    const unconditional = await send(app, "DELETE", "/notes/2");
    const again = await send(app, "DELETE", "/notes/2");
    const read = await send(app, "GET", "/notes/1");
    expect([
      stale.status,
      matched.status,
      await matched.text(),
      unconditional.status,
      again.status,
      read.status,
    ]).toEqual([412, 204, "", 204, 404, 404]);
  });
});

describe("validation and body format", () => {
  test("every field problem is listed in one 422, and none echoes the input", async () => {
    await using app = crudApp();
    const cases: Array<[unknown, unknown[]]> = [
      [
        { title: 5, body: [], pinned: "yes", colour: "red", size: 2 },
        [
          { pointer: "#", detail: "has 2 unknown fields; allowed: title, body, pinned" },
          { pointer: "#/title", detail: "must be a string" },
          { pointer: "#/body", detail: "must be a string" },
          { pointer: "#/pinned", detail: "must be a boolean" },
        ],
      ],
      [{}, [{ pointer: "#/title", detail: "is required" }]],
      [
        { title: null, body: null },
        [
          { pointer: "#/title", detail: "must be a string" },
          { pointer: "#/body", detail: "must be a string" },
        ],
      ],
      [{ title: "" }, [{ pointer: "#/title", detail: "must not be empty" }]],
      [
        { title: "a\nb", body: "ok\ttab\r\nline\u0007bell" },
        [
          { pointer: "#/title", detail: "must not contain control characters or line breaks" },
          {
            pointer: "#/body",
            detail: "must not contain control characters other than tab, CR and LF",
          },
        ],
      ],
      [
        '{"title":"\\ud800"}',
        [{ pointer: "#/title", detail: "must be well-formed Unicode (no lone surrogates)" }],
      ],
      [[{ title: "in an array" }], [{ pointer: "#", detail: "must be a JSON object" }]],
      ["null", [{ pointer: "#", detail: "must be a JSON object" }]],
      ['"text"', [{ pointer: "#", detail: "must be a JSON object" }]],
    ];
    for (const [body, errors] of cases) {
      const response = await send(app, "POST", "/notes", body);
      expect([body, response.status, await response.json()]).toEqual([
        body,
        422,
        problem(422, "Unprocessable Content", "the note is not valid", errors),
      ]);
    }
    expect(app.shared.notes.size).toBe(0);
  });

  test("lengths count characters: exactly at each limit passes, one over is a 422", async () => {
    await using app = crudApp();
    const title = emoji.repeat(noteLimits.maxTitleCharacters);
    const body = emoji.repeat(noteLimits.maxBodyCharacters);
    const atLimit = await send(app, "POST", "/notes", { title, body, pinned: true });
    const titleOver = await send(app, "POST", "/notes", { title: `${title}a`, body });
    const bodyOver = await send(app, "POST", "/notes", { title, body: `${body}a` });
    expect(await outline(atLimit)).toMatchObject({
      status: 201,
      body: { title, body, pinned: true },
    });
    const errors = async (response: Response) =>
      ((await response.json()) as ProblemDocument).errors;
    expect([await errors(titleOver), await errors(bodyOver)]).toEqual([
      [{ pointer: "#/title", detail: "must be at most 100 characters" }],
      [{ pointer: "#/body", detail: "must be at most 1000 characters" }],
    ]);
  });

  test("malformed JSON is a 400; a wrong media type or a content coding is a 415", async () => {
    await using app = crudApp();
    const post = (body: string | Uint8Array, headers: Record<string, string>) =>
      app.request("/notes", { method: "POST", headers, body });
    const valid = JSON.stringify({ title: "t" });
    const answers = [
      await post("{", jsonType),
      await post("", jsonType),
      await post(new Uint8Array([0x7b, 0xff, 0x7d]), jsonType),
      await post(valid, { "Content-Type": "text/plain" }),
      await post(valid, {}),
      await post(valid, { "Content-Type": "application/json; charset=iso-8859-1" }),
      await post(valid, { ...jsonType, "Content-Encoding": "gzip" }),
    ];
    const summaries = [];
    for (const response of answers) {
      summaries.push({
        status: response.status,
        type: response.headers.get("content-type"),
        accept: response.headers.get("accept") ?? response.headers.get("accept-encoding"),
        detail: ((await response.json()) as ProblemDocument).detail,
      });
    }
    const badRequest = { status: 400, type: "application/problem+json", accept: null };
    const unsupported = { status: 415, type: "application/problem+json" };
    expect(summaries).toEqual([
      { ...badRequest, detail: "the body is not valid JSON" },
      { ...badRequest, detail: "the body is not valid JSON" },
      { ...badRequest, detail: "the body is not valid UTF-8" },
      { ...unsupported, accept: "application/json", detail: "the body must be application/json" },
      { ...unsupported, accept: "application/json", detail: "the body must be application/json" },
      { ...unsupported, accept: "application/json", detail: "a JSON body must be UTF-8" },
      { ...unsupported, accept: "identity", detail: "the body must not have a content coding" },
    ]);
    for (const type of ["Application/JSON", 'application/json; charset="UTF-8"']) {
      expect((await post(valid, { "Content-Type": type })).status).toBe(201);
    }
  });

  test("the request body limit: exactly 16 KiB is read, one byte more is a 413", async () => {
    await using app = crudApp();
    // The worst valid note as escapes still fits: 12 bytes for each emoji.
    const escaped = `{"title":"${"\\ud83d\\ude00".repeat(100)}","body":"${"\\ud83d\\ude00".repeat(1000)}"}`;
    const padded = (bytes: number) => `${" ".repeat(bytes - escaped.length)}${escaped}`;
    const worst = await send(app, "POST", "/notes", escaped);
    const exact = await send(app, "POST", "/notes", padded(noteLimits.maxRequestBodyBytes));
    const over = await send(app, "POST", "/notes", padded(noteLimits.maxRequestBodyBytes + 1));
    expect([escaped.length < noteLimits.maxRequestBodyBytes, worst.status, exact.status]).toEqual([
      true,
      201,
      201,
    ]);
    expect(over.status).toBe(413);
  });
});

describe("a bounded collection", () => {
  test("exactly maxNotes notes fit; one more is a 507 until a note is deleted", async () => {
    await using app = crudApp({ maxNotes: 3 });
    const statuses: number[] = [];
    for (const title of ["a", "b", "c", "d"]) {
      statuses.push((await send(app, "POST", "/notes", { title })).status);
    }
    const full = await send(app, "POST", "/notes", { title: "e" });
    expect([statuses, await outline(full)]).toEqual([
      [201, 201, 201, 507],
      {
        status: 507,
        etag: null,
        body: problem(
          507,
          "Insufficient Storage",
          "the collection is full (3 notes); delete one to make room",
        ),
      },
    ]);
    expect((await send(app, "DELETE", "/notes/2")).status).toBe(204);
    const room = await send(app, "POST", "/notes", { title: "f" });
    // Ids are never reused: the new note is 4 (the two refused ones took none), not 2.
    expect([room.status, room.headers.get("location"), room.headers.get("etag")]).toEqual([
      201,
      "/notes/4",
      '"4-1"',
    ]);
    expect(() => createCrudApp({ maxNotes: 0 })).toThrow(TypeError);
  });
});

describe("listing", () => {
  async function titles(response: Response) {
    const page = (await response.json()) as PageDocument;
    return {
      status: response.status,
      link: response.headers.get("link"),
      titles: page.items.map((item) => item.title),
      next: page.next,
    };
  }

  test("pages follow the next link (body and Link header) to the end", async () => {
    await using app = crudApp();
    for (const title of ["a", "b", "c", "d", "e"]) await send(app, "POST", "/notes", { title });
    const first = await titles(await send(app, "GET", "/notes?limit=2"));
    // Keyset paging: deleting an already listed note shifts nothing.
    await send(app, "DELETE", "/notes/1");
    const second = await titles(await send(app, "GET", `${first.next}`));
    const third = await titles(await send(app, "GET", `${second.next}`));
    expect([first, second, third]).toEqual([
      {
        status: 200,
        link: '</notes?limit=2&cursor=2>; rel="next"',
        titles: ["a", "b"],
        next: "/notes?limit=2&cursor=2",
      },
      {
        status: 200,
        link: '</notes?limit=2&cursor=4>; rel="next"',
        titles: ["c", "d"],
        next: "/notes?limit=2&cursor=4",
      },
      { status: 200, link: null, titles: ["e"], next: null },
    ]);
    const all = await titles(await send(app, "GET", "/notes"));
    const encoded = await titles(await send(app, "GET", "/notes?limit=%33&cursor=2&other=x"));
    const empty = await titles(await send(app, "GET", "/notes?cursor=5"));
    expect([all.titles, encoded.titles, empty]).toEqual([
      ["b", "c", "d", "e"],
      ["c", "d", "e"],
      { status: 200, link: null, titles: [], next: null },
    ]);
  });

  test("limit and cursor are validated whole numbers; every problem is listed in one 400", async () => {
    await using app = crudApp();
    const limitProblem = { parameter: "limit", detail: "must be a whole number from 1 to 25" };
    const cursorProblem = {
      parameter: "cursor",
      detail: "must be a whole number from 1 to 9007199254740991",
    };
    const cases: Array<[string, unknown[]]> = [
      ["limit=0", [limitProblem]],
      ["limit=26", [limitProblem]],
      ["limit=-1", [limitProblem]],
      ["limit=1.5", [limitProblem]],
      ["limit=", [limitProblem]],
      ["limit=%41", [limitProblem]],
      [`limit=${"1".repeat(40)}`, [limitProblem]],
      ["cursor=abc&limit=x", [limitProblem, cursorProblem]],
      ["cursor=9007199254740992", [cursorProblem]],
      [
        "limit=2&limit=3",
        [{ parameter: "limit", detail: "must be given once, as a whole number from 1 to 25" }],
      ],
    ];
    for (const [query, errors] of cases) {
      const response = await send(app, "GET", `/notes?${query}`);
      expect([query, response.status, await response.json()]).toEqual([
        query,
        400,
        problem(400, "Bad Request", "the page request is not valid", errors),
      ]);
    }
    expect((await send(app, "GET", "/notes?limit=25")).status).toBe(200);
  });

  test("a full page of the largest notes fits the reserved staging (bounded JSON output)", async () => {
    await using app = crudApp({ maxNotes: noteLimits.maxPageSize + 1 });
    const largest = {
      title: emoji.repeat(noteLimits.maxTitleCharacters),
      body: emoji.repeat(noteLimits.maxBodyCharacters),
    };
    for (let count = 0; count <= noteLimits.maxPageSize; count++) {
      expect((await send(app, "POST", "/notes", largest)).status).toBe(201);
    }
    const single = await send(app, "GET", "/notes/1");
    const page = await send(app, "GET", `/notes?limit=${noteLimits.maxPageSize}`);
    const pageBytes = (await page.arrayBuffer()).byteLength;
    const noteBytes = (await single.arrayBuffer()).byteLength;
    expect({
      status: page.status,
      next: page.headers.get("link"),
      withinBound: pageBytes <= maxPageJsonBytes && noteBytes <= maxNoteJsonBytes,
      // The bound is tight: only the digits and dates are shorter than it allows for.
      nearBound: pageBytes > maxPageJsonBytes - 2048 && noteBytes > maxNoteJsonBytes - 80,
      fitsStaging: maxPageJsonBytes <= crudAppLimits.stagingBytes!,
    }).toEqual({
      status: 200,
      next: '</notes?limit=25&cursor=25>; rel="next"',
      withinBound: true,
      nearBound: true,
      fitsStaging: true,
    });
  });
});

test("entity tag lists parse per RFC 9110 §8.8.3 and §5.6.1", () => {
  expect([
    parseEntityTagCondition(" * "),
    parseEntityTagCondition(', "a" ,W/"b",'),
    parseEntityTagCondition(""),
    parseEntityTagCondition('"a" "b"'),
    parseEntityTagCondition('"a'),
    parseEntityTagCondition('w/"a"'),
    parseEntityTagCondition('"a b"'),
    parseEntityTagCondition('*, "a"'),
  ]).toEqual([
    { kind: "any" },
    {
      kind: "list",
      tags: [
        { weak: false, opaque: '"a"' },
        { weak: true, opaque: '"b"' },
      ],
    },
    { kind: "list", tags: [] },
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test("bun run example crud serves the collection over fetch and raw bytes", async () => {
  await using example = await startExample("crud");
  expect(example.startupOutput).toContain(
    "8 workers x (112 KiB staging + 16 KiB body + 16 KiB stream window)",
  );
  const created = await fetch(`${example.baseUrl}notes`, {
    method: "POST",
    headers: jsonType,
    body: JSON.stringify({ title: "over the wire" }),
  });
  expect([created.status, created.headers.get("location"), created.headers.get("etag")]).toEqual([
    201,
    "/notes/1",
    '"1-1"',
  ]);
  await created.body?.cancel();
  const listed = await fetch(`${example.baseUrl}notes?limit=1`);
  const page = (await listed.json()) as PageDocument;
  expect(page.items.map((note) => note.id)).toEqual(["1"]);

  using client = await RawClient.connect(example.port);
  const update = JSON.stringify({ title: "changed" });
  const put = (ifMatchLines: string) =>
    `PUT /notes/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${ifMatchLines}` +
    `Content-Length: ${update.length}\r\n\r\n${update}`;
  // Two If-Match lines are one list (RFC 9110 §5.3): the second line's tag matches.
  client.send(
    put("") +
      put('If-Match: "1-9"\r\n') +
      put('If-Match: "5-5"\r\nIf-Match: "1-1"\r\n') +
      'GET /notes/1 HTTP/1.1\r\nHost: x\r\nIf-None-Match: "1-2"\r\n\r\n',
  );
  const [required, failed, updated, notModified] = await client.responses(4);
  expect(
    [required, failed, updated, notModified].map((response) => [
      response!.statusLine,
      response!.header("content-type"),
      response!.header("etag"),
    ]),
  ).toEqual([
    ["HTTP/1.1 428 Precondition Required", "application/problem+json", undefined],
    ["HTTP/1.1 412 Precondition Failed", "application/problem+json", undefined],
    ["HTTP/1.1 200 OK", "application/json", '"1-2"'],
    ["HTTP/1.1 304 Not Modified", undefined, '"1-2"'],
  ]);
  expect([JSON.parse(updated!.text).title, notModified!.body.length]).toEqual(["changed", 0]);
});
