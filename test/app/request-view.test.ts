import { expect, test } from "bun:test";
import { App, type DecodeError, params, type RequestView } from "corral";
import fc from "fast-check";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "../support/listen-quietly.ts";

test("query(): ordered raw entries, duplicates kept, files[] ordinary, values stay text", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/q", (ctx) => {
    const query = ctx.request.query();
    ctx.response.json(200, {
      entries: [...query].map((entry) => [entry.nameRaw, entry.valueRaw]),
      first: query.firstRaw("a")?.valueRaw ?? null,
      missing: query.firstRaw("zzz") ?? null,
    });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /q?a=007&files%5B%5D=x&a=false&b=a+b%2Bc&flag HTTP/1.1\r\nHost: h\r\n\r\n");
  expect(JSON.parse((await client.response()).text)).toEqual({
    entries: [
      ["a", "007"],
      ["files%5B%5D", "x"],
      ["a", "false"],
      ["b", "a+b%2Bc"],
      ["flag", ""],
    ],
    first: "007",
    missing: null,
  });
  await app.stop();
});

test("query().firstRaw reads the request's own bytes, before and after the text is made", async () => {
  const app = new App({ shared: {} });
  const names = ["a", "b", "flag", "files%5B%5D", "e", "", "zzz", "a=b", "\u00e9"];
  app.route("GET", "/q", (ctx) => {
    const query = ctx.request.query();
    const first = names.map((name) => query.firstRaw(name)?.valueRaw ?? null);
    const length = query.length;
    const again = names.map((name) => query.firstRaw(name)?.valueRaw ?? null);
    ctx.response.json(200, { first, length, again });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  // Pipelined in one write: each request's values are its own, not the one before's.
  client.send(
    "GET /q?a=007&files%5B%5D=x&&a=false&b=a+b%2Bc&flag&e=&=v HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /q?b=2&a HTTP/1.1\r\nHost: h\r\n\r\nGET /q HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const [one, two, three] = (await client.responses(3)).map((response) =>
    JSON.parse(response.text),
  );
  const first = ["007", "a+b%2Bc", "", "x", "", "v", null, null, null];
  expect(one).toEqual({ first, length: 7, again: first });
  const second = ["", "2", null, null, null, null, null, null, null];
  expect(two).toEqual({ first: second, length: 2, again: second });
  const none = names.map(() => null);
  expect(three).toEqual({ first: none, length: 0, again: none });
  await app.stop();
});

test("queryValueRaw(name) is query().firstRaw(name)?.valueRaw, read over the wire and pipelined", async () => {
  const app = new App({ shared: {} });
  const names = ["a", "b", "flag", "files%5B%5D", "e", "", "zzz", "a=b", "\u00e9"];
  app.route("GET", "/q", (ctx) => {
    const direct = names.map((name) => ctx.request.queryValueRaw(name) ?? null);
    const records = names.map((name) => ctx.request.query().firstRaw(name)?.valueRaw ?? null);
    ctx.response.json(200, { direct, records });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /q?a=007&files%5B%5D=x&&a=false&b=a+b%2Bc&flag&e=&=v HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /q?b=2&a HTTP/1.1\r\nHost: h\r\n\r\nGET /q HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const answers = (await client.responses(3)).map((response) => JSON.parse(response.text));
  expect(answers.map((answer) => answer.direct)).toEqual([
    ["007", "a+b%2Bc", "", "x", "", "v", null, null, null],
    ["", "2", null, null, null, null, null, null, null],
    names.map(() => null),
  ]);
  for (const answer of answers) expect(answer.direct).toEqual(answer.records);
  await app.stop();
});

test("queryValueRaw agrees with query().firstRaw on any query and name", async () => {
  const app = new App({ shared: {} });
  let name = "";
  app.route("GET", "/q", (ctx) => {
    const direct = ctx.request.queryValueRaw(name) ?? null;
    ctx.response.json(200, [direct, ctx.request.query().firstRaw(name)?.valueRaw ?? null]);
  });
  const piece = fc.stringMatching(/^[ab=&%+]{0,12}$/);
  await fc.assert(
    fc.asyncProperty(piece, fc.stringMatching(/^[ab=&+]{0,3}$/), async (query, asked) => {
      name = asked;
      const answer = await (await app.request(`/q?${query}`)).json();
      const [direct, records] = answer as [string | null, string | null];
      expect(direct).toBe(records);
    }),
    { numRuns: 300 },
  );
  await app.stop();
});

test("queryValueRaw: a name that is not a string is a TypeError; after the handler, a clear error", async () => {
  const app = new App({ shared: {} });
  let kept: RequestView | undefined;
  app.route("GET", "/", (ctx) => {
    kept = ctx.request;
    try {
      ctx.request.queryValueRaw(7 as unknown as string);
    } catch (error) {
      ctx.response.text(200, (error as Error).message);
    }
  });
  expect(await (await app.request("/?7=x")).text()).toBe(
    "corral: ctx.request.queryValueRaw(name) takes a parameter name, got 7",
  );
  expect(() => kept!.queryValueRaw("7")).toThrow("ctx.request used after the handler returned");
  await app.stop();
});

test("form(): a URL-encoded body as raw entries; another media type is 415", async () => {
  const app = new App({ shared: {} });
  app.route("POST", "/f", (ctx) => {
    ctx.response.json(
      200,
      [...ctx.request.form()].map((entry) => `${entry.nameRaw}=${entry.valueRaw}`),
    );
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  const body = "x=1&files[]=a&x=2&y=a+b%2Bc";
  client.send(
    `POST /f HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      "POST /f HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nx=1",
  );
  const [form, wrong] = await client.responses(2);
  expect(JSON.parse(form!.text)).toEqual(["x=1", "files[]=a", "x=2", "y=a+b%2Bc"]);
  expect([wrong!.status, wrong!.text]).toEqual([
    415,
    "Unsupported Media Type: expected an application/x-www-form-urlencoded body, got text/plain\n",
  ]);
  await app.stop();
});

test("multipart(): one flat list; a malformed body is a 400 before any item is seen", async () => {
  const app = new App({ shared: {} });
  const seen: string[] = [];
  app.route("POST", "/m", (ctx) => {
    for (const part of ctx.request.multipart()) {
      seen.push(part.name);
    }
    ctx.response.json(
      200,
      ctx.request
        .multipart()
        .map((part) => [
          part.name,
          part.filename ?? null,
          part.contentType ?? null,
          new TextDecoder().decode(part.bytes),
        ]),
    );
  });
  const server = listenQuietly(app);
  const good =
    '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="files[]"; filename="a;b \\"c\\".txt"\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2\r\n' +
    "--XyZ--\r\n";
  const bad = '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n--XyZ\r\n';
  using client = await RawClient.connect(server.port);
  for (const body of [good, bad]) {
    client.send(
      `POST /m HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  }
  const [ok, rejected] = await client.responses(2);
  expect(JSON.parse(ok!.text)).toEqual([
    ["title", null, null, "hello"],
    ["files[]", 'a;b "c".txt', "text/plain", "line1\r\nline2"],
  ]);
  expect(rejected!.status).toBe(400);
  expect(seen).toEqual(["title", "files[]"]);
  await app.stop();
});

test("cookies(): several Cookie lines are read as one, joined in order (RFC 9113 §8.2.3)", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/c", (ctx) => {
    ctx.response.json(200, {
      cookies: ctx.request.cookies().map(({ name, value }) => `${name}=${value}`),
      c: ctx.request.cookie("c") ?? null,
      a: ctx.request.cookie("a") ?? null,
    });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /c HTTP/1.1\r\nCookie: a=1; b=2\r\nHost: h\r\ncookie: c=3\r\nCOOKIE: a=4\r\n\r\n" +
      "GET /c HTTP/1.1\r\nHost: h\r\nCookie: c=only\r\n\r\n" +
      "GET /c HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const responses = await client.responses(3);
  expect(responses.map((response) => JSON.parse(response.text))).toEqual([
    { cookies: ["a=1", "b=2", "c=3", "a=4"], c: "3", a: "1" },
    { cookies: ["c=only"], c: "only", a: null },
    { cookies: [], c: null, a: null },
  ]);
  await app.stop();
});

test("json(): the body as JSON; invalid JSON or UTF-8 is a 400 DecodeError; bounded by maxBodyBytes", async () => {
  const app = new App({ shared: {}, limits: { maxBodyBytes: 32 } });
  app.route("POST", "/j", (ctx) => {
    const value = ctx.request.json();
    ctx.response.json(200, { value, same: ctx.request.json() === value });
  });
  app.route("POST", "/reason", (ctx) => {
    try {
      ctx.request.json();
      ctx.response.text(200, "parsed\n");
    } catch (error) {
      ctx.response.text(200, `${(error as DecodeError).reason}\n`);
    }
  });
  const server = listenQuietly(app);
  const post = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const atLimit = `{"name":"${"x".repeat(21)}"}`;
  expect(atLimit.length).toBe(32);
  const answers = [];
  for (const [path, body] of [
    ["/j", '{"a":[1,"\xc3\xa9",null]}'],
    ["/j", atLimit],
    ["/j", "{not json"],
    ["/j", ""],
    ["/j", '"\xff"'],
    ["/reason", "[1,"],
    ["/reason", '"\xc3"'],
    ["/j", `${atLimit} `],
  ] as const) {
    using client = await RawClient.connect(server.port);
    client.send(post(path, body));
    const [response] = await client.responses(1);
    answers.push([response!.status, response!.text]);
  }
  expect(answers).toEqual([
    [200, '{"value":{"a":[1,"é",null]},"same":true}'],
    [200, `{"value":{"name":"${"x".repeat(21)}"},"same":true}`],
    [400, "Bad Request: the request body is not JSON: JSON Parse error: Expected '}'\n"],
    [400, "Bad Request: the request body is not JSON: JSON Parse error: Unexpected EOF\n"],
    [400, "Bad Request: the request body is not valid UTF-8\n"],
    [200, "invalidJson\n"],
    [200, "invalidUtf8\n"],
    [413, "Content Too Large: the request body is over maxBodyBytes (32 bytes)\n"],
  ]);
  await app.stop();
});

test("json() takes application/json or a +json type; any other type, or none, is a 415 a cross-site form cannot pass", async () => {
  const app = new App();
  app.post("/j", (ctx) => ctx.response.json(200, ctx.request.json()));
  const server = listenQuietly(app);
  const answers = [];
  for (const type of [
    "application/json",
    "Application/JSON; charset=utf-8",
    "application/problem+json",
    "application/vnd.api+json ; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/+json",
    "application/jsonx",
    undefined,
  ]) {
    const body = '{"a":1}';
    const typeLine = type === undefined ? "" : `Content-Type: ${type}\r\n`;
    using client = await RawClient.connect(server.port);
    client.send(
      `POST /j HTTP/1.1\r\nHost: h\r\n${typeLine}Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    const [response] = await client.responses(1);
    answers.push(`${response!.status} ${response!.text}`);
  }
  const refused = (got: string) =>
    `415 Unsupported Media Type: expected an application/json body, got ${got}\n`;
  expect(answers).toEqual([
    '200 {"a":1}',
    '200 {"a":1}',
    '200 {"a":1}',
    '200 {"a":1}',
    refused("text/plain"),
    refused("application/x-www-form-urlencoded"),
    refused("multipart/form-data"),
    refused("application/+json"),
    refused("application/jsonx"),
    refused("none"),
  ]);
  await app.stop();
});

test("remoteAddress: the peer over TCP, the same object on each read; undefined in process", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/peer", (ctx) => {
    const peer = ctx.request.remoteAddress;
    ctx.response.json(200, { peer: peer ?? null, same: ctx.request.remoteAddress === peer });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send("GET /peer HTTP/1.1\r\nHost: h\r\n\r\n");
  const [response] = await client.responses(1);
  const inProcess = await app.request("/peer");
  expect({ wire: JSON.parse(response!.text), inProcess: await inProcess.json() }).toEqual({
    wire: { peer: { address: "127.0.0.1", family: "IPv4", port: client.localPort }, same: true },
    inProcess: { peer: null, same: true },
  });
  await app.stop();
});

test("touching the request view after the handler returned throws a clear error", async () => {
  const app = new App({ shared: {} });
  let kept: RequestView | undefined;
  let keptQuery: ReturnType<RequestView["query"]> | undefined;
  app.route("GET", "/", (ctx) => {
    kept = ctx.request;
    keptQuery = ctx.request.query();
    ctx.response.text(200, ctx.request.path);
  });
  expect(await (await app.request("/?a=1")).text()).toBe("/");
  expect(() => kept!.path).toThrow("ctx.request used after the handler returned");
  expect(() => kept!.header("host")).toThrow("ctx.request used after the handler returned");
  expect(() => keptQuery!.firstRaw("a")).toThrow("ctx.request used after the handler returned");
  await app.stop();
});

test("a stray % or a backslash in the query reaches the handler as sent (browsers send ?off=50% and ?a=b\\c raw); decoding a stray % is a 400, and in the path the engine refuses both", async () => {
  const app = new App({ shared: {} });
  app.route("GET", "/q", (ctx) => {
    const query = ctx.request.query();
    ctx.response.json(200, {
      off: query.firstRaw("off")?.valueRaw ?? null,
      entries: [...query].map((entry) => [entry.nameRaw, entry.valueRaw]),
    });
  });
  app.route("GET", "/decoded", (ctx) => {
    const raw = ctx.request.query().firstRaw("off")?.valueRaw ?? "";
    ctx.response.text(200, params.formDecodeText(raw, new Uint8Array(64)));
  });
  app.route("GET", "/p/:name", (ctx) => {
    ctx.response.text(200, ctx.params.name);
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "GET /q?off=50%&b=%zz&c=%4&d=b\\c HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /decoded?off=50%25 HTTP/1.1\r\nHost: h\r\n\r\n" +
      "GET /decoded?off=50% HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const [raw, decoded, malformed] = await client.responses(3);
  expect(JSON.parse(raw!.text)).toEqual({
    off: "50%",
    entries: [
      ["off", "50%"],
      ["b", "%zz"],
      ["c", "%4"],
      ["d", "b\\c"],
    ],
  });
  expect([decoded!.status, decoded!.text]).toEqual([200, "50%"]);
  expect(malformed!.status).toBe(400);
  for (const path of ["/p/50%", "/p/a\\b"]) {
    using pathClient = await RawClient.connect(server.port);
    pathClient.send(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`);
    const refused = await pathClient.response();
    expect([path, refused.status, refused.text]).toEqual([
      path,
      400,
      "Bad Request: malformed request\n",
    ]);
  }
  await app.stop();
});

test("a chunked body's trailer fields are dropped: the body is whole and no trailer reaches header()", async () => {
  const app = new App({ shared: {} });
  app.route("POST", "/t", (ctx) => {
    ctx.response.json(200, {
      body: ctx.request.text(),
      trailer: ctx.request.header("x-trailer") ?? null,
      length: ctx.request.header("content-length") ?? null,
    });
  });
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(
    "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "5\r\nhello\r\n0\r\nX-Trailer: late\r\nContent-Length: 99\r\n\r\n",
  );
  const response = await client.response();
  expect([response.status, JSON.parse(response.text)]).toEqual([
    200,
    { body: "hello", trailer: null, length: null },
  ]);
  await app.stop();
});
