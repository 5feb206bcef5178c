// Parser conformance over real TCP: tables of raw requests and what the engine must answer.
// Accepted requests are also replayed split in two writes at every byte offset and pipelined;
// rejected ones must get their exact status, `Connection: close`, a closed socket and a count.
import { describe, expect, test } from "bun:test";
import { type EngineErrorName, engineErrors, type Limits, type Server } from "../index.ts";
import { RawClient } from "./support/raw-client.ts";
import { echoHandler, startServer } from "./support/test-server.ts";

// ---- reading answers ----------------------------------------------------------------------------

/** One response as these tests compare it. */
interface Answer {
  readonly statusLine: string;
  readonly connection: string | undefined;
  readonly contentLength: string | undefined;
  readonly body: string;
}

/**
 * Cuts the complete responses out of `bytes`. Interim (1xx) answers have no body; answers to HEAD
 * requests (marked by position among final answers in `headRequests`) have a length but no body.
 * `extra` is whatever follows the last complete answer.
 */
function answersIn(
  bytes: Uint8Array,
  headRequests: readonly boolean[],
): { answers: Answer[]; extra: string } {
  const text = Buffer.from(bytes).toString("latin1");
  const answers: Answer[] = [];
  let offset = 0;
  let finals = 0;
  while (true) {
    const headEnd = text.indexOf("\r\n\r\n", offset);
    if (headEnd < 0) break;
    const [statusLine = "", ...lines] = text.slice(offset, headEnd).split("\r\n");
    const fields = new Map(
      lines.map((line) => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
      }),
    );
    const contentLength = fields.get("content-length");
    const final = Number(statusLine.split(" ")[1]) >= 200;
    const bodyLength = final && !headRequests[finals] ? Number(contentLength ?? 0) : 0;
    const bodyEnd = headEnd + 4 + bodyLength;
    if (bodyEnd > bytes.length) break;
    if (final) finals++;
    answers.push({
      statusLine,
      connection: fields.get("connection"),
      contentLength,
      body: new TextDecoder().decode(bytes.subarray(headEnd + 4, bodyEnd)),
    });
    offset = bodyEnd;
  }
  return { answers, extra: text.slice(offset) };
}

/** Waits for `finalCount` final answers (1xx not counted) or the close, and returns them. */
async function finalAnswers(
  client: RawClient,
  finalCount: number,
  headRequests: readonly boolean[] = [],
): Promise<{ answers: Answer[]; extra: string }> {
  const finals = () =>
    answersIn(client.received, headRequests).answers.filter(
      (answer) => !answer.statusLine.startsWith("HTTP/1.1 1"),
    ).length;
  await client.waitFor(
    () => finals() >= finalCount || client.closed,
    `${finalCount} final answers`,
  );
  return answersIn(client.received, headRequests);
}

/** Waits for `condition`, yielding to the event loop between checks; fails after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(0);
  }
}

/** Sends `request` in two writes cut at `split`; the second leaves only once the first arrived. */
async function sendSplit(server: Server, client: RawClient, request: Uint8Array, split: number) {
  const before = server.stats().bytesIn;
  client.send(request.subarray(0, split));
  await until(() => server.stats().bytesIn >= before + split, `the first ${split} bytes to arrive`);
  client.send(request.subarray(split));
}

function bytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "latin1"));
}

// ---- accepted requests --------------------------------------------------------------------------

/** What the echo handler reports of one parsed request. */
interface Echo {
  readonly method: string;
  readonly target: string;
  readonly versionMinor: 0 | 1;
  readonly path: string;
  readonly query: string;
  /** `name=value`, as sent, in order. */
  readonly headers: readonly string[];
  /** The decoded body, as Latin-1 text. */
  readonly body: string;
}

function echoText(echo: Echo): string {
  return (
    `${echo.method} ${echo.target} 1.${echo.versionMinor}\n` +
    `path=${echo.path} query=${echo.query}\n` +
    `headers=${echo.headers.join("|")}\n` +
    `body=${echo.body}`
  );
}

interface ValidCase {
  readonly name: string;
  readonly request: string;
  readonly echo: Echo;
  /** A HEAD request: the answer has the echo's Content-Length but no body. */
  readonly head?: boolean;
  /** The answer's Connection header; "close" also means the server closes after it. */
  readonly connection?: "close" | "keep-alive";
  /** Expect: 100-continue with a body: an interim 100 comes when the head arrives alone. */
  readonly continues?: boolean;
}

const get = (target: string, path: string, query = ""): Omit<Echo, "headers"> => ({
  method: "GET",
  target,
  versionMinor: 1,
  path,
  query,
  body: "",
});

const validCases: readonly ValidCase[] = [
  {
    name: "origin-form with a query",
    request: "GET /a/b?x=1&y=?z HTTP/1.1\r\nHost: example.com\r\n\r\n",
    echo: { ...get("/a/b?x=1&y=?z", "/a/b", "x=1&y=?z"), headers: ["Host=example.com"] },
  },
  {
    name: "absolute-form",
    request: "GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\n\r\n",
    echo: { ...get("http://example.com/a?b", "/a", "b"), headers: ["Host=example.com"] },
  },
  {
    name: "absolute-form with a port and no path",
    request: "GET http://example.com:8080 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
    echo: { ...get("http://example.com:8080", "/"), headers: ["Host=example.com:8080"] },
  },
  {
    name: "asterisk-form OPTIONS",
    request: "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("*", "*"), method: "OPTIONS", headers: ["Host=h"] },
  },
  {
    name: "HTTP/1.0 without Host (closes: 1.0 does not keep alive by default)",
    request: "GET /old HTTP/1.0\r\n\r\n",
    echo: { ...get("/old", "/old"), versionMinor: 0, headers: [] },
    connection: "close",
  },
  {
    name: "HTTP/1.2 is served as HTTP/1.1",
    request: "GET /new HTTP/1.2\r\nHost: h\r\n\r\n",
    echo: { ...get("/new", "/new"), headers: ["Host=h"] },
  },
  {
    name: "a method made of tchars",
    request: "M-SEARCH /x HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("/x", "/x"), method: "M-SEARCH", headers: ["Host=h"] },
  },
  {
    name: "OWS around header values is not part of them",
    request: "GET / HTTP/1.1\r\nHost:h\r\nX-Ows: \t spaced  value \t\r\nX-Empty:   \r\n\r\n",
    echo: { ...get("/", "/"), headers: ["Host=h", "X-Ows=spaced  value", "X-Empty="] },
  },
  {
    name: "obs-text (0x80-0xFF) in a header value",
    request: "GET / HTTP/1.1\r\nHost: h\r\nX-Obs: caf\xe9 \x80\xff\r\n\r\n",
    echo: { ...get("/", "/"), headers: ["Host=h", "X-Obs=caf\xe9 \x80\xff"] },
  },
  {
    name: "HTAB inside a header value",
    request: "GET / HTTP/1.1\r\nHost: h\r\nX-Tab: a\tb\r\n\r\n",
    echo: { ...get("/", "/"), headers: ["Host=h", "X-Tab=a\tb"] },
  },
  {
    name: "percent escapes in path and query stay encoded",
    request: "GET /caf%C3%A9/a%2fb?q=%20%7E HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: {
      ...get("/caf%C3%A9/a%2fb?q=%20%7E", "/caf%C3%A9/a%2fb", "q=%20%7E"),
      headers: ["Host=h"],
    },
  },
  {
    name: "the query bytes browsers send raw (WHATWG): [ ] { } | ^ and backquote",
    request: "GET /q?files[]=x&q={a}&a=b|c&x=^&t=`1` HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: {
      ...get("/q?files[]=x&q={a}&a=b|c&x=^&t=`1`", "/q", "files[]=x&q={a}&a=b|c&x=^&t=`1`"),
      headers: ["Host=h"],
    },
  },
  {
    name: "a stray % in the query, as browsers send it (Chromium: ?off=50%), stays as sent",
    request: "GET /q?off=50%&b=%zz&c=%4 HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("/q?off=50%&b=%zz&c=%4", "/q", "off=50%&b=%zz&c=%4"), headers: ["Host=h"] },
  },
  {
    name: "a backslash in the query, as browsers send it (Chromium: ?a=b\\c)",
    request: "GET /q?a=b\\c HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("/q?a=b\\c", "/q", "a=b\\c"), headers: ["Host=h"] },
  },
  {
    name: "the path bytes clients send raw: [ ] | ^",
    request: "GET /dir/[id]/a|b^c HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("/dir/[id]/a|b^c", "/dir/[id]/a|b^c"), headers: ["Host=h"] },
  },
  {
    name: "absolute-form with [ ] in the path and { } in the query",
    request: "GET http://h/dir/[id]?q={a} HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("http://h/dir/[id]?q={a}", "/dir/[id]", "q={a}"), headers: ["Host=h"] },
  },
  {
    name: "a Content-Length body",
    request: "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world",
    echo: {
      ...get("/up", "/up"),
      method: "POST",
      headers: ["Host=h", "Content-Length=11"],
      body: "hello world",
    },
  },
  {
    name: "a body with NUL, CR, LF and 0xFF bytes",
    request: "PUT /b HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\na\0\r\n\xffz",
    echo: {
      ...get("/b", "/b"),
      method: "PUT",
      headers: ["Host=h", "Content-Length=6"],
      body: "a\0\r\n\xffz",
    },
  },
  {
    name: "identical duplicate Content-Length",
    request: "POST /d HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\nabc",
    echo: {
      ...get("/d", "/d"),
      method: "POST",
      headers: ["Host=h", "Content-Length=3", "content-length=3"],
      body: "abc",
    },
  },
  {
    name: "a chunked body with extensions (token=value, quoted string) and trailers",
    request:
      "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
      '5;name=value\r\nhello\r\n6;q="a; \\"b\\"";flag\r\n world\r\n0\r\nX-Trailer: t\r\nY: 2\r\n\r\n',
    echo: {
      ...get("/c", "/c"),
      method: "POST",
      headers: ["Host=h", "Transfer-Encoding=chunked"],
      body: "hello world",
    },
  },
  {
    name: "chunk sizes with leading zeros and upper-case hex",
    request:
      "POST /z HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "000A\r\n0123456789\r\n0B\r\nabcdefghijk\r\n000\r\n\r\n",
    echo: {
      ...get("/z", "/z"),
      method: "POST",
      headers: ["Host=h", "Transfer-Encoding=chunked"],
      body: "0123456789abcdefghijk",
    },
  },
  {
    name: "Expect: 100-continue with a body",
    request: "PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody",
    echo: {
      ...get("/e", "/e"),
      method: "PUT",
      headers: ["Host=h", "Expect=100-continue", "Content-Length=4"],
      body: "body",
    },
    continues: true,
  },
  {
    name: "Expect: 100-continue without a body gets no interim answer",
    request: "PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n",
    echo: {
      ...get("/e", "/e"),
      method: "PUT",
      headers: ["Host=h", "Expect=100-continue", "Content-Length=0"],
    },
  },
  {
    name: "HEAD gets the Content-Length but no body",
    request: "HEAD /h HTTP/1.1\r\nHost: h\r\n\r\n",
    echo: { ...get("/h", "/h"), method: "HEAD", headers: ["Host=h"] },
    head: true,
  },
  {
    name: "Connection: close",
    request: "GET /bye HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
    echo: { ...get("/bye", "/bye"), headers: ["Host=h", "Connection=close"] },
    connection: "close",
  },
  {
    name: "HTTP/1.0 with Connection: keep-alive",
    request: "GET /ka HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    echo: { ...get("/ka", "/ka"), versionMinor: 0, headers: ["Connection=keep-alive"] },
    connection: "keep-alive",
  },
];

const serverLimits: Partial<Limits> = { maxConnections: 64, workers: 4 };

const continueAnswer: Answer = {
  statusLine: "HTTP/1.1 100 Continue",
  connection: undefined,
  contentLength: undefined,
  body: "",
};

function answerTo(echo: Echo, options: { head?: boolean; connection?: string }): Answer {
  const text = echoText(echo);
  return {
    statusLine: "HTTP/1.1 200 OK",
    connection: options.connection,
    contentLength: String(Buffer.byteLength(text, "utf8")),
    body: options.head ? "" : text,
  };
}

/** Sent after a keep-alive answer: its own answer proves the connection stayed open and in sync. */
const probe = "GET /after HTTP/1.1\r\nHost: h\r\n\r\n";
const probeAnswer = answerTo({ ...get("/after", "/after"), headers: ["Host=h"] }, {});

describe("accepted requests", () => {
  for (const valid of validCases) {
    const final = answerTo(valid.echo, valid);
    const closes = valid.connection === "close";
    const request = bytesOf(valid.request);
    const headLength = valid.request.indexOf("\r\n\r\n") + 4;

    test(`${valid.name}: in one write`, async () => {
      await using server = startServer(echoHandler, serverLimits);
      using client = await RawClient.connect(server.port);
      client.send(request);
      await finalAnswers(client, 1, [valid.head ?? false]);
      if (closes) await client.waitForClose();
      else client.send(probe);
      const { answers, extra } = await finalAnswers(client, closes ? 1 : 2, [valid.head ?? false]);
      expect({ answers, extra, closed: client.closed, errors: server.stats().errors }).toEqual({
        answers: closes ? [final] : [final, probeAnswer],
        extra: "",
        closed: closes,
        errors: {},
      });
    });

    test(`${valid.name}: split in two writes at every byte offset`, async () => {
      await using server = startServer(echoHandler, serverLimits);
      const actual: unknown[] = [];
      const expected: unknown[] = [];
      for (let split = 1; split < request.length; split++) {
        using client = await RawClient.connect(server.port);
        await sendSplit(server, client, request, split);
        await finalAnswers(client, 1, [valid.head ?? false]);
        if (closes) await client.waitForClose();
        const { answers, extra } = answersIn(client.received, [valid.head ?? false]);
        actual.push({ split, answers, extra, closed: client.closed });
        // RFC 9110 §10.1.1: the interim answer is only for a client still waiting to send.
        const interim = valid.continues && split === headLength;
        expected.push({
          split,
          answers: interim ? [continueAnswer, final] : [final],
          extra: "",
          closed: closes,
        });
      }
      expect(actual).toEqual(expected);
    });

    if (closes) {
      // The server closes after the first answer, so pipelined requests behind it are never
      // answered: check exactly that instead of three answers.
      test(`${valid.name}: three in one write get one answer, then the close`, async () => {
        await using server = startServer(echoHandler, serverLimits);
        using client = await RawClient.connect(server.port);
        client.send(valid.request.repeat(3));
        await client.waitForClose();
        const { answers, extra } = answersIn(client.received, [valid.head ?? false]);
        expect({ answers, extra }).toEqual({ answers: [final], extra: "" });
      });
    } else {
      test(`${valid.name}: three in one write, then a probe, answered in order`, async () => {
        await using server = startServer(echoHandler, serverLimits);
        using client = await RawClient.connect(server.port);
        client.send(valid.request.repeat(3) + probe);
        const heads = [valid.head ?? false, valid.head ?? false, valid.head ?? false, false];
        const { answers, extra } = await finalAnswers(client, 4, heads);
        expect({ answers, extra, closed: client.closed }).toEqual({
          answers: [final, final, final, probeAnswer],
          extra: "",
          closed: false,
        });
      });
    }
  }

  test("Expect: 100-continue: the interim 100 comes first while the body is held back", async () => {
    await using server = startServer(echoHandler, serverLimits);
    using client = await RawClient.connect(server.port);
    client.send("PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "an interim answer");
    const interim = client.receivedText;
    client.send("body");
    const { answers } = await finalAnswers(client, 1);
    const expected = validCases.find((valid) => valid.continues)!;
    expect({ interim, answers }).toEqual({
      interim: "HTTP/1.1 100 Continue\r\n\r\n",
      answers: [continueAnswer, answerTo(expected.echo, {})],
    });
  });

  test("Expect as a list with empty elements still gets its 100 (RFC 9110 §10.1.1, §5.6.1); an empty Expect none", async () => {
    // Both were a 417 and a closed connection: the value was compared whole with 100-continue.
    await using server = startServer(
      (exchange) => exchange.writeText(`got ${exchange.body.length}`),
      serverLimits,
    );
    using client = await RawClient.connect(server.port);
    client.send("PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue,\r\nContent-Length: 4\r\n\r\n");
    await client.waitFor(() => client.receivedText.includes("\r\n\r\n"), "an interim answer");
    const interim = client.receivedText;
    client.send("bodyPUT /f HTTP/1.1\r\nHost: h\r\nExpect:\r\nContent-Length: 2\r\n\r\nhi");
    const answers = await client.responses(3);
    expect({
      interim,
      answers: answers.map((answer) => `${answer.status} ${answer.text}`),
      closed: client.closed,
      errors: server.stats().errors,
    }).toEqual({
      interim: "HTTP/1.1 100 Continue\r\n\r\n",
      answers: ["100 ", "200 got 4", "200 got 2"],
      closed: false,
      errors: {},
    });
  });
});

// ---- rejected requests --------------------------------------------------------------------------

/** Small limits, so that every limit can be crossed by a short request. */
const smallLimits: Partial<Limits> = {
  ...serverLimits,
  maxRequestLineBytes: 64,
  maxHeaderBytes: 256,
  maxHeaderCount: 8,
  maxBodyBytes: 32,
  maxChunkExtensionBytes: 16,
  maxTrailerBytes: 32,
};

const statusLines: { readonly [status: number]: string } = {
  400: "HTTP/1.1 400 Bad Request",
  413: "HTTP/1.1 413 Content Too Large",
  414: "HTTP/1.1 414 URI Too Long",
  417: "HTTP/1.1 417 Expectation Failed",
  431: "HTTP/1.1 431 Request Header Fields Too Large",
  501: "HTTP/1.1 501 Not Implemented",
  505: "HTTP/1.1 505 HTTP Version Not Supported",
};

function errorAnswer(error: EngineErrorName): Answer {
  const { status, message } = engineErrors[error];
  return {
    statusLine: statusLines[status]!,
    connection: "close",
    contentLength: String(message.length + 1),
    body: `${message}\n`,
  };
}

const host = "Host: h\r\n";
const post = (fields: string, body = "") => `POST / HTTP/1.1\r\n${host}${fields}\r\n${body}`;
const chunked = (body: string) => post("Transfer-Encoding: chunked\r\n", body);

type InvalidCase = readonly [name: string, request: string, status: number, error: EngineErrorName];

const invalidCases: readonly InvalidCase[] = [
  ["a ( in the method", `G(ET / HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a NUL in the method", `GE\0T / HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["no space after the method", `GET/ HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["two spaces after the method", `GET  / HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["two spaces before the version", `GET /  HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["no space before the version", `GET /HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a space after the version", `GET / HTTP/1.1 \r\n${host}\r\n`, 400, "malformedRequest"],
  ["a space before the method", ` GET / HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["lower-case http/1.1", `GET / http/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["HTTP/1.10", `GET / HTTP/1.10\r\n${host}\r\n`, 400, "malformedRequest"],
  ["HTTP/2.0", `GET / HTTP/2.0\r\n${host}\r\n`, 505, "unsupportedVersion"],
  ["HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", 505, "unsupportedVersion"],
  ["an HTTP/0.9-style request line", "GET /\r\n\r\n", 400, "malformedRequest"],
  ['a " in the path', `GET /a"b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ['a " in the query', `GET /a?b"c HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a raw # in the path", `GET /a#b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a raw # in the query", `GET /a?b#c HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a < in the query", `GET /a?b<c HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a > in the path", `GET /a>b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a { in the path", `GET /a{b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a } in the path", `GET /a}b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a backquote in the path", `GET /a\`b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a \\ in the path", `GET /a\\b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a space in the target", `GET /a b HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a HTAB in the query", `GET /a?b\tc HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a 0x01 byte in the query", `GET /a?b\x01 HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a DEL byte in the path", `GET /a\x7f HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a 0x80 byte in the path", `GET /a\x80 HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["a 0xe9 byte in the query", `GET /a?q=\xe9 HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["%4 at the end of the target", `GET /a%4 HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["%zz in the target", `GET /a%zz HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  [
    "a % not before hex in the path, before a query",
    `GET /a%?b HTTP/1.1\r\n${host}\r\n`,
    400,
    "malformedRequest",
  ],
  [
    "userinfo in absolute-form",
    `GET http://user@host/ HTTP/1.1\r\n${host}\r\n`,
    400,
    "malformedRequest",
  ],
  [
    "an empty host in absolute-form",
    `GET http://:80/ HTTP/1.1\r\n${host}\r\n`,
    400,
    "malformedRequest",
  ],
  ["asterisk-form with GET", `GET * HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["no Host on HTTP/1.1", "GET / HTTP/1.1\r\n\r\n", 400, "malformedRequest"],
  ["two Host lines", `GET / HTTP/1.1\r\n${host}${host}\r\n`, 400, "malformedRequest"],
  ["a Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "malformedRequest"],
  ["a Host with userinfo", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", 400, "malformedRequest"],
  ["a Host with a non-digit port", "GET / HTTP/1.1\r\nHost: h:x\r\n\r\n", 400, "malformedRequest"],
  ["obs-fold", `GET / HTTP/1.1\r\n${host}X: a\r\n b\r\n\r\n`, 400, "malformedRequest"],
  ["whitespace before the colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "malformedRequest"],
  ["an empty header name", `GET / HTTP/1.1\r\n${host}: x\r\n\r\n`, 400, "malformedRequest"],
  ["NUL in a header value", `GET / HTTP/1.1\r\n${host}X: a\0b\r\n\r\n`, 400, "malformedRequest"],
  [
    "a bare CR in a header value",
    `GET / HTTP/1.1\r\n${host}X: a\rb\r\n\r\n`,
    400,
    "malformedRequest",
  ],
  ["bare LF line endings", "GET / HTTP/1.1\nHost: h\n\n", 400, "malformedRequest"],
  // Answered at once: no LF will come to end the line, and none is waited for.
  ["bare CR line endings, no LF at all", "GET / HTTP/1.1\rHost: h\r\r", 400, "malformedRequest"],
  ["Content-Length: -1", post("Content-Length: -1\r\n"), 400, "malformedRequest"],
  ["Content-Length: 1e3", post("Content-Length: 1e3\r\n"), 400, "malformedRequest"],
  ["Content-Length: +5", post("Content-Length: +5\r\n"), 400, "malformedRequest"],
  ["Content-Length: 5, 5", post("Content-Length: 5, 5\r\n"), 400, "malformedRequest"],
  ["an empty Content-Length", post("Content-Length:\r\n"), 400, "malformedRequest"],
  [
    "conflicting Content-Length",
    post("Content-Length: 3\r\nContent-Length: 4\r\n", "abc"),
    400,
    "malformedRequest",
  ],
  [
    "Transfer-Encoding with Content-Length",
    post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
    400,
    "malformedRequest",
  ],
  [
    "Transfer-Encoding: gzip, chunked",
    post("Transfer-Encoding: gzip, chunked\r\n"),
    501,
    "unsupportedTransferCoding",
  ],
  [
    "Transfer-Encoding: chunked, gzip",
    post("Transfer-Encoding: chunked, gzip\r\n"),
    400,
    "malformedRequest",
  ],
  [
    "Transfer-Encoding: gzip",
    post("Transfer-Encoding: gzip\r\n"),
    501,
    "unsupportedTransferCoding",
  ],
  [
    "Transfer-Encoding on HTTP/1.0",
    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
    "malformedRequest",
  ],
  ["a chunk size zz", chunked("zz\r\n"), 400, "malformedChunkedBody"],
  ["a chunk size 0x5", chunked("0x5\r\nhello\r\n0\r\n\r\n"), 400, "malformedChunkedBody"],
  ["no CRLF after chunk data", chunked("5\r\nhelloXX"), 400, "malformedChunkedBody"],
  ["a ; with no extension name", chunked("5;\r\nhello\r\n0\r\n\r\n"), 400, "malformedChunkedBody"],
  ["a ; and =value, no name", chunked("5;=v\r\nhello\r\n0\r\n\r\n"), 400, "malformedChunkedBody"],
  [
    "an empty extension between ;;",
    chunked("5;a;;b\r\nhello\r\n0\r\n\r\n"),
    400,
    "malformedChunkedBody",
  ],
  [
    "an extension = with no value",
    chunked("5;a=\r\nhello\r\n0\r\n\r\n"),
    400,
    "malformedChunkedBody",
  ],
  [
    "an unbalanced quote in an extension",
    chunked('5;a="b\r\nhello\r\n0\r\n\r\n'),
    400,
    "malformedChunkedBody",
  ],
  [
    "an escaped closing quote, left open",
    chunked('5;a="b\\"\r\nhello\r\n0\r\n\r\n'),
    400,
    "malformedChunkedBody",
  ],
  [
    "a quote inside a token value",
    chunked('5;a=b"c\r\nhello\r\n0\r\n\r\n'),
    400,
    "malformedChunkedBody",
  ],
  [
    "text right after a quoted value",
    chunked('5;a="b"c\r\nhello\r\n0\r\n\r\n'),
    400,
    "malformedChunkedBody",
  ],
  ["a ; with no name on the last chunk", chunked("0;\r\n\r\n"), 400, "malformedChunkedBody"],
  ["a chunk size that overflows", chunked("ffffffffffffffffff\r\n"), 400, "malformedChunkedBody"],
  [
    "obs-fold in the trailer section",
    chunked("0\r\nX: a\r\n b\r\n\r\n"),
    400,
    "malformedChunkedBody",
  ],
  [
    "Expect: something-else",
    `GET / HTTP/1.1\r\n${host}Expect: something-else\r\n\r\n`,
    417,
    "unsupportedExpectation",
  ],
  [
    "CONNECT to host and port, a request pipelined after it: no tunnel, never the handler",
    `CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\nGET / HTTP/1.1\r\n${host}\r\n`,
    501,
    "connectNotImplemented",
  ],
  [
    "an absolute-form target naming another host than Host",
    "GET http://evil.example/ HTTP/1.1\r\nHost: good.example\r\n\r\n",
    400,
    "malformedRequest",
  ],
  ["CONNECT to a path", `CONNECT / HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  ["CONNECT without a port", `CONNECT h HTTP/1.1\r\n${host}\r\n`, 400, "malformedRequest"],
  [
    "a Content-Length of 20 digits",
    post("Content-Length: 99999999999999999999\r\n"),
    413,
    "bodyTooLarge",
  ],
  [
    "Content-Length over maxBodyBytes, body not sent",
    post("Content-Length: 33\r\n"),
    413,
    "bodyTooLarge",
  ],
  [
    "chunked data over maxBodyBytes",
    chunked(`20\r\n${"a".repeat(32)}\r\n1\r\n`),
    413,
    "bodyTooLarge",
  ],
  [
    "too many header fields",
    `GET / HTTP/1.1\r\n${host}${"X: y\r\n".repeat(8)}\r\n`,
    431,
    "tooManyHeaders",
  ],
  [
    "a request line over maxRequestLineBytes",
    `GET /${"a".repeat(60)} HTTP/1.1\r\n${host}\r\n`,
    414,
    "requestLineTooLong",
  ],
  [
    "a head over maxHeaderBytes",
    `GET / HTTP/1.1\r\n${host}X: ${"a".repeat(240)}\r\n\r\n`,
    431,
    "headerSectionTooLarge",
  ],
  [
    "a chunk extension over maxChunkExtensionBytes",
    chunked(`1;${"e".repeat(20)}\r\na\r\n0\r\n\r\n`),
    400,
    "chunkExtensionTooLong",
  ],
  [
    "a trailer section over maxTrailerBytes",
    chunked(`0\r\nX: ${"t".repeat(40)}\r\n\r\n`),
    431,
    "trailerSectionTooLarge",
  ],
];

describe("rejected requests get their status, Connection: close, the close, and a count", () => {
  for (const [name, request, status, error] of invalidCases) {
    test(`${name}: ${status} ${error}`, async () => {
      await using server = startServer(echoHandler, smallLimits);
      using client = await RawClient.connect(server.port);
      client.send(request);
      await finalAnswers(client, 1);
      if (client.receivedText.includes("\r\nConnection: close\r\n")) await client.waitForClose();
      const { answers, extra } = answersIn(client.received, []);
      expect({
        status,
        answers,
        extra,
        closed: client.closed,
        errors: server.stats().errors,
      }).toEqual({
        status: engineErrors[error].status,
        answers: [errorAnswer(error)],
        extra: "",
        closed: true,
        errors: { [error]: 1 },
      });
    });
  }
});

// ---- limits at their boundary -------------------------------------------------------------------

/** Sends `request` on a fresh connection; returns the status line and whether it was closed. */
async function outcomeOf(server: Server, request: string | Uint8Array, split?: number) {
  using client = await RawClient.connect(server.port);
  const bytes = typeof request === "string" ? bytesOf(request) : request;
  if (split === undefined) client.send(bytes);
  else await sendSplit(server, client, bytes, split);
  const { answers } = await finalAnswers(client, 1);
  const answer = answers[0]!;
  if (answer.connection === "close") await client.waitForClose();
  return { statusLine: answer.statusLine, closed: client.closed };
}

const accepted = { statusLine: "HTTP/1.1 200 OK", closed: false };
const rejected = (status: number) => ({ statusLine: statusLines[status]!, closed: true });

describe("limits at their boundary (the small limits above)", () => {
  const requestLine = (length: number) => `GET /${"a".repeat(length - 14)} HTTP/1.1`;
  const head = (length: number) => {
    const fixed = `GET / HTTP/1.1\r\n${host}X: \r\n\r\n`;
    return fixed.replace("X: ", `X: ${"a".repeat(length - fixed.length)}`);
  };

  test("maxRequestLineBytes counts method, SP, target, SP, version, not the CRLF: 64 → 200, 65 → 414", async () => {
    await using server = startServer(echoHandler, smallLimits);
    expect([requestLine(64).length, requestLine(65).length]).toEqual([64, 65]);
    expect({
      atLimit: await outcomeOf(server, `${requestLine(64)}\r\n${host}\r\n`),
      overLimit: await outcomeOf(server, `${requestLine(65)}\r\n${host}\r\n`),
      errors: server.stats().errors,
    }).toEqual({ atLimit: accepted, overLimit: rejected(414), errors: { requestLineTooLong: 1 } });
  });

  test("a request line longer than maxHeaderBytes is 414 in one write and in two", async () => {
    await using server = startServer(echoHandler, smallLimits);
    const request = `${requestLine(300)}\r\n${host}\r\n`;
    expect({
      oneWrite: await outcomeOf(server, request),
      twoWrites: await outcomeOf(server, request, 100),
      errors: server.stats().errors,
    }).toEqual({
      oneWrite: rejected(414),
      twoWrites: rejected(414),
      errors: { requestLineTooLong: 2 },
    });
  });

  test("maxHeaderBytes counts the whole head, request line to the final CRLFCRLF: 256 → 200, 257 → 431", async () => {
    await using server = startServer(echoHandler, smallLimits);
    expect([head(256).length, head(257).length]).toEqual([256, 257]);
    expect({
      atLimit: await outcomeOf(server, head(256)),
      overLimit: await outcomeOf(server, head(257)),
      errors: server.stats().errors,
    }).toEqual({
      atLimit: accepted,
      overLimit: rejected(431),
      errors: { headerSectionTooLarge: 1 },
    });
  });

  test("maxHeaderCount counts field lines, Host included: 8 → 200, 9 → 431", async () => {
    await using server = startServer(echoHandler, smallLimits);
    const withFields = (count: number) =>
      `GET / HTTP/1.1\r\n${host}${"X: y\r\n".repeat(count - 1)}\r\n`;
    expect({
      atLimit: await outcomeOf(server, withFields(8)),
      overLimit: await outcomeOf(server, withFields(9)),
      errors: server.stats().errors,
    }).toEqual({ atLimit: accepted, overLimit: rejected(431), errors: { tooManyHeaders: 1 } });
  });

  test("maxBodyBytes bounds Content-Length: 32 → 200, 33 → 413 before any body byte is sent", async () => {
    await using server = startServer(echoHandler, smallLimits);
    expect({
      atLimit: await outcomeOf(server, post("Content-Length: 32\r\n", "b".repeat(32))),
      overLimit: await outcomeOf(server, post("Content-Length: 33\r\n")),
      errors: server.stats().errors,
    }).toEqual({ atLimit: accepted, overLimit: rejected(413), errors: { bodyTooLarge: 1 } });
  });

  test("maxBodyBytes bounds decoded chunked data, not framing: 32 → 200, 33 → 413 at the size line, before its data", async () => {
    await using server = startServer(echoHandler, smallLimits);
    const first = `10\r\n${"a".repeat(16)}\r\n`;
    expect({
      atLimit: await outcomeOf(server, chunked(`${first}10\r\n${"b".repeat(16)}\r\n0\r\n\r\n`)),
      overLimit: await outcomeOf(server, chunked(`${first}11\r\n`)),
      errors: server.stats().errors,
    }).toEqual({ atLimit: accepted, overLimit: rejected(413), errors: { bodyTooLarge: 1 } });
  });

  test("maxChunkExtensionBytes counts every byte between a chunk size and its CRLF, per line: 16 → 200, 17 → 400", async () => {
    await using server = startServer(echoHandler, smallLimits);
    const extension = `;${"e".repeat(15)}`;
    expect({
      atLimit: await outcomeOf(server, chunked(`1${extension}\r\na\r\n0${extension}\r\n\r\n`)),
      overLimit: await outcomeOf(server, chunked(`1${extension}e\r\na\r\n0\r\n\r\n`)),
      errors: server.stats().errors,
    }).toEqual({
      atLimit: accepted,
      overLimit: rejected(400),
      errors: { chunkExtensionTooLong: 1 },
    });
  });

  test("maxTrailerBytes counts trailer field lines with their CRLFs, not the final CRLF: 32 → 200, 33 → 431", async () => {
    await using server = startServer(echoHandler, smallLimits);
    const trailers = `X: ${"t".repeat(10)}\r\nY: ${"t".repeat(12)}\r\n`;
    expect(trailers.length).toBe(32);
    expect({
      atLimit: await outcomeOf(server, chunked(`1\r\na\r\n0\r\n${trailers}\r\n`)),
      overLimit: await outcomeOf(server, chunked(`1\r\na\r\n0\r\nX${trailers}\r\n`)),
      errors: server.stats().errors,
    }).toEqual({
      atLimit: accepted,
      overLimit: rejected(431),
      errors: { trailerSectionTooLarge: 1 },
    });
  });
});
