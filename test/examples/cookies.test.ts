import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defaultLimits } from "corral";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import { createCookiesApp, maxListedCookies } from "../../examples/cookies/cookies-app.ts";
import { parseImfFixdate } from "../../examples/cookies/http-date.ts";
import { type RunningExample, startExample } from "./support/start-example.ts";

let example: RunningExample;
beforeAll(async () => {
  example = await startExample("cookies");
});
afterAll(async () => {
  await example[Symbol.asyncDispose]();
});

/** Sends raw requests on one connection, pipelined, and returns their responses in order. */
async function exchange(...requests: string[]): Promise<WireResponse[]> {
  using client = await RawClient.connect(example.port);
  client.send(requests.join(""));
  return await client.responses(requests.length);
}

function request(method: string, target: string, headers = "", body = ""): string {
  const length = body === "" ? "" : `Content-Length: ${body.length}\r\n`;
  return `${method} ${target} HTTP/1.1\r\nHost: h\r\n${headers}${length}\r\n${body}`;
}

const formHeader = "Content-Type: application/x-www-form-urlencoded\r\n";

/** The parts of a response these tests compare, with every Set-Cookie line in order. */
function summary(response: WireResponse) {
  return {
    statusLine: response.statusLine,
    setCookie: response.headers.filter(([name]) => name === "set-cookie").map(([, value]) => value),
    // every Content-Type line, to see there is exactly one
    type: response.headers.filter(([name]) => name === "content-type").map(([, value]) => value),
    body: JSON.parse(response.text) as unknown,
  };
}

describe("POST /cookies/:name sets a cookie", () => {
  test("from the query or a form, with Max-Age, Expires or both, as exact Set-Cookie lines", async () => {
    const responses = await exchange(
      request("POST", "/cookies/theme?value=dark"),
      request("POST", "/cookies/note", formHeader, "value=a%2Bb&maxAge=7"),
      request("POST", "/cookies/theme?value=dark&maxAge=60"),
      request("POST", "/cookies/when?value=x&expires=Thu,%2021%20Oct%202027%2007:28:00%20GMT"),
      request("POST", "/cookies/when?value=x&expires=1824103680000"),
      request("POST", "/cookies/both?value=1&maxAge=3600&expires=1798761599000"),
      request("POST", "/cookies/gone?value=1&maxAge=0"),
      request("POST", "/cookies/gone?value=1&maxAge=-5"),
      request("POST", "/cookies/empty?value="),
    );
    const lines = responses.map((response) => summary(response).setCookie);
    expect(lines).toEqual([
      ["theme=dark; Path=/"],
      ["note=a+b; Max-Age=7; Path=/"],
      ["theme=dark; Max-Age=60; Path=/"],
      ["when=x; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Path=/"],
      ["when=x; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Path=/"],
      ["both=1; Expires=Thu, 31 Dec 2026 23:59:59 GMT; Max-Age=3600; Path=/"],
      ["gone=1; Max-Age=0; Path=/"],
      ["gone=1; Max-Age=0; Path=/"],
      ["empty=; Path=/"],
    ]);
    expect(summary(responses[5]!)).toEqual({
      statusLine: "HTTP/1.1 200 OK",
      setCookie: ["both=1; Expires=Thu, 31 Dec 2026 23:59:59 GMT; Max-Age=3600; Path=/"],
      type: ["application/json"],
      body: { name: "both", value: "1", maxAge: 3600, expires: "Thu, 31 Dec 2026 23:59:59 GMT" },
    });
  });

  test("a name and value of exactly 4096 bytes together are set; one byte more is a 400", async () => {
    // Browsers ignore a cookie whose name and value pass 4096 bytes (RFC 6265bis §5.6).
    const [fits, over, huge] = await exchange(
      request("POST", `/cookies/big?value=${"v".repeat(4093)}`),
      request("POST", `/cookies/big?value=${"v".repeat(4094)}`),
      request("POST", `/cookies/big?value=${"v".repeat(4097)}`),
    );
    expect([fits!.statusLine, summary(fits!).setCookie]).toEqual([
      "HTTP/1.1 200 OK",
      [`big=${"v".repeat(4093)}; Path=/`],
    ]);
    expect([summary(over!).statusLine, summary(over!).setCookie, summary(over!).body]).toEqual([
      "HTTP/1.1 400 Bad Request",
      [],
      {
        error:
          'corral: cookie "big" is 4097 bytes of name and value; browsers ignore more than 4096 (RFC 6265bis §5.6)',
      },
    ]);
    expect(summary(huge!).body).toEqual({
      error: "value: decoded value needs more than 4096 bytes",
    });
  });
});

describe("invalid names, values and expiry are a 400 with a JSON error, and nothing is set", () => {
  test.each<[string, string, string, string, RegExp]>([
    [
      "a space in the name",
      "/cookies/bad%20name?value=x",
      "",
      "",
      /cookie name "bad name" contains a space/,
    ],
    ["a separator in the name", "/cookies/a@b?value=x", "", "", /cookie name "a@b" contains "@"/],
    [
      "a semicolon in the value",
      "/cookies/n?value=a%3Bb",
      "",
      "",
      /value of cookie "n" contains ";"/,
    ],
    [
      "a space from a form '+'",
      "/cookies/n",
      formHeader,
      "value=a+b",
      /contains a space at index 1/,
    ],
    ["a non-ASCII value", "/cookies/n?value=caf%C3%A9", "", "", /non-ASCII character "é"/],
    ["__Host- without Secure", "/cookies/__Host-id?value=1", "", "", /__Host- prefix/],
    ["no value", "/cookies/n?maxAge=5", "", "", /^missing value/],
    [
      "a malformed escape in a form",
      "/cookies/n",
      formHeader,
      "value=%ZZ",
      /^value: "%" at offset 0/,
    ],
    ["invalid UTF-8", "/cookies/n?value=%FF", "", "", /^value: decoded bytes are not valid UTF-8$/],
    ["a fractional maxAge", "/cookies/n?value=1&maxAge=1.5", "", "", /^maxAge must be a whole/],
    [
      "a word for expires",
      "/cookies/n?value=1&expires=tomorrow",
      "",
      "",
      /^expires must be an HTTP-date/,
    ],
    [
      "a wrong weekday",
      "/cookies/n?value=1&expires=Mon,%2021%20Oct%202027%2007:28:00%20GMT",
      "",
      "",
      /^expires must be an HTTP-date/,
    ],
    [
      "an expiry before 1601",
      "/cookies/n?value=1&expires=Sat,%2001%20Jan%201600%2000:00:00%20GMT",
      "",
      "",
      /year 1600 is outside 1601 to 9999/,
    ],
    [
      "an epoch past any Date",
      "/cookies/n?value=1&expires=9999999999999999",
      "",
      "",
      /invalid Date/,
    ],
  ])("%s", async (_name, target, headers, body, message) => {
    const [response] = await exchange(request("POST", target, headers, body));
    const { statusLine, setCookie, type, body: json } = summary(response!);
    expect({ statusLine, setCookie, type }).toEqual({
      statusLine: "HTTP/1.1 400 Bad Request",
      setCookie: [],
      type: ["application/json"],
    });
    expect((json as { error: string }).error).toMatch(message);
  });
});

describe("GET /cookies and DELETE /cookies/:name", () => {
  test("GET lists the request's cookies in order, duplicates kept, as JSON", async () => {
    const [response] = await exchange(
      request("GET", "/cookies", 'Cookie: b=2; a=1; b=3; q="quoted"; junk\r\n'),
    );
    expect([response!.statusLine, response!.header("content-type"), response!.text]).toEqual([
      "HTTP/1.1 200 OK",
      "application/json",
      '{"cookies":[{"name":"b","value":"2"},{"name":"a","value":"1"},{"name":"b","value":"3"},{"name":"q","value":"quoted"}]}',
    ]);
  });

  test("the list is bounded by the request head: exactly maxHeaderBytes is listed, one more is 431", async () => {
    const head = (fill: number) =>
      `GET /cookies HTTP/1.1\r\nHost: h\r\nCookie: a=${"x".repeat(fill)}\r\n\r\n`;
    const fill = defaultLimits.maxHeaderBytes - head(0).length;
    const [atLimit] = await exchange(head(fill));
    const [over] = await exchange(head(fill + 1));
    expect([
      head(fill).length,
      atLimit!.status,
      (JSON.parse(atLimit!.text) as { cookies: { value: string }[] }).cookies[0]!.value.length,
      over!.status,
    ]).toEqual([16384, 200, fill, 431]);
  });

  test("at most 1000 cookies are listed, one more is a 431; the worst head of short cookies fits", async () => {
    // 4,000 cookies of `a=;` in a 12 KiB head made 96 KiB of JSON, over the staging: a 500.
    const head = (pairs: string) => `GET /cookies HTTP/1.1\r\nHost: h\r\nCookie: ${pairs}\r\n\r\n`;
    const [atLimit, over, flood, escaped] = await exchange(
      head(Array.from({ length: maxListedCookies }, () => "a=").join(";")),
      head(Array.from({ length: maxListedCookies + 1 }, () => "a=").join(";")),
      head("a=;".repeat(4000)),
      head(`a=${"\\".repeat(16_000)}`),
    );
    expect([
      atLimit!.status,
      (JSON.parse(atLimit!.text) as { cookies: unknown[] }).cookies.length,
      over!.status,
      over!.text,
      flood!.status,
      escaped!.status,
    ]).toEqual([
      200,
      maxListedCookies,
      431,
      '{"error":"more than 1000 cookies (1001); browsers send far fewer"}',
      431,
      200,
    ]);
  });

  test("DELETE answers Max-Age=0 and an Expires in the past, with the Path it was set with", async () => {
    const [deleted, invalid] = await exchange(
      request("DELETE", "/cookies/theme"),
      request("DELETE", "/cookies/th%20eme"),
    );
    expect([summary(deleted!), summary(invalid!).statusLine]).toEqual([
      {
        statusLine: "HTTP/1.1 200 OK",
        setCookie: ["theme=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"],
        type: ["application/json"],
        body: { deleted: "theme" },
      },
      "HTTP/1.1 400 Bad Request",
    ]);
  });
});

describe("in process", () => {
  test("a form body of another media type is a 415", async () => {
    const app = createCookiesApp();
    const response = await app.request("/cookies/n", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "value=1",
    });
    expect([response.status, response.headers.get("set-cookie")]).toEqual([415, null]);
  });

  test.each<[string, string | undefined]>([
    ["Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37.000Z"],
    ["Thu, 01 Jan 0026 00:00:00 GMT", "0026-01-01T00:00:00.000Z"],
    ["Tue, 29 Feb 2028 12:00:00 GMT", "2028-02-29T12:00:00.000Z"],
    ["Thu, 31 Feb 2028 12:00:00 GMT", undefined],
    ["Sun, 06 Nov 1994 24:00:00 GMT", undefined],
    ["Sun, 06 Nov 1994 08:49:37 UTC", undefined],
    ["Sunday, 06-Nov-94 08:49:37 GMT", undefined],
    ["Sun,  6 Nov 1994 08:49:37 GMT", undefined],
  ])("parseImfFixdate(%p)", (text, expected) => {
    expect(parseImfFixdate(text)?.toISOString()).toBe(expected as string);
  });
});
