import { afterAll, describe, expect, test } from "bun:test";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import {
  createCatalogue,
  type Item,
  jsonByteLength,
  padToJsonBytes,
} from "../../examples/json-lookup/catalogue.ts";
import { longestErrorBytes, maxIdBytes } from "../../examples/json-lookup/item-errors.ts";
import {
  createJsonLookupApp,
  defaultStagingBytes,
  type JsonLookupOptions,
} from "../../examples/json-lookup/json-lookup-app.ts";
import { startExample } from "./support/start-example.ts";

type JsonLookupApp = ReturnType<typeof createJsonLookupApp>;

const apps: JsonLookupApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
});

/** An app for in-process requests, stopped after the file. */
function makeApp(options?: JsonLookupOptions): JsonLookupApp {
  const app = createJsonLookupApp(options);
  apps.push(app);
  return app;
}

const app = makeApp();

/** Status, type, exact body length and parsed JSON of an in-process GET. */
async function get(target: string, on: JsonLookupApp = app) {
  const response = await on.request(target);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    length: Number(response.headers.get("content-length")),
    json: JSON.parse(text) as unknown,
  };
}

function item(id: string, name: string): Item {
  return { id, name, price: "1.00", priceCents: 100, currency: "EUR", stock: 1 };
}

describe("GET /items/:id", () => {
  test("answers the item as JSON; the id is percent-decoded text, leading zeros kept", async () => {
    const answers = await Promise.all(
      ["/items/mug", "/items/caf%C3%A9-filter", "/items/007"].map((target) => get(target)),
    );
    expect(answers).toEqual([
      {
        status: 200,
        type: "application/json",
        length: 85,
        json: {
          id: "mug",
          name: "Mug",
          price: "8.00",
          priceCents: 800,
          currency: "EUR",
          stock: 40,
        },
      },
      {
        status: 200,
        type: "application/json",
        length: 115,
        json: {
          id: "café-filter",
          name: "Café filter, 100 pieces",
          price: "3.10",
          priceCents: 310,
          currency: "EUR",
          stock: 33,
        },
      },
      {
        status: 200,
        type: "application/json",
        length: 102,
        json: {
          id: "007",
          name: "Gift card № 007",
          price: "25.00",
          priceCents: 2500,
          currency: "EUR",
          stock: 100,
        },
      },
    ]);
  });

  test("an unknown id is a JSON 404 that echoes the decoded id", async () => {
    const answers = await Promise.all(
      ["/items/7", "/items/no%20such", "/items/%22quoted%22%5C"].map((target) => get(target)),
    );
    expect(answers.map(({ status, type, json }) => ({ status, type, json }))).toEqual([
      { status: 404, type: "application/json", json: { error: "not found", id: "7" } },
      { status: 404, type: "application/json", json: { error: "not found", id: "no such" } },
      { status: 404, type: "application/json", json: { error: "not found", id: '"quoted"\\' } },
    ]);
  });

  test("an id whose percent-encoding is not UTF-8 is a JSON 400", async () => {
    const malformed = ["/items/%FF", "/items/%C3%28", "/items/%E0%A4", "/items/%ED%A0%80"];
    const answers = await Promise.all(malformed.map((target) => get(target)));
    const expected = {
      status: 400,
      type: "application/json",
      json: { error: "malformed id", reason: "its percent-encoding is not UTF-8" },
    };
    expect(answers.map(({ status, type, json }) => ({ status, type, json }))).toEqual(
      malformed.map(() => expected),
    );
  });

  test(`ids are bounded: ${maxIdBytes} bytes are looked up, one byte more is a JSON 400`, async () => {
    const tooLong = { error: "id too long", maxIdBytes };
    const twoByte = "%C3%A9".repeat(maxIdBytes / 2); // "é" is two bytes in UTF-8
    const answers = await Promise.all(
      [
        `/items/${"a".repeat(maxIdBytes)}`,
        `/items/${"a".repeat(maxIdBytes + 1)}`,
        `/items/${twoByte}`,
        `/items/${twoByte}a`,
      ].map((target) => get(target)),
    );
    expect(answers.map(({ status, json }) => ({ status, json }))).toEqual([
      { status: 404, json: { error: "not found", id: "a".repeat(maxIdBytes) } },
      { status: 400, json: tooLong },
      { status: 404, json: { error: "not found", id: "é".repeat(maxIdBytes / 2) } },
      { status: 400, json: tooLong },
    ]);
  });
});

describe("GET /items", () => {
  test("lists every item's id, name and price, in catalogue order", async () => {
    const catalogue = createCatalogue(defaultStagingBytes);
    const listing = await get("/items");
    expect(listing).toEqual({
      status: 200,
      type: "application/json",
      length: listing.length,
      json: {
        count: 14,
        items: catalogue.map(({ id, name, price }) => ({ id, name, price })),
      },
    });
    expect(listing.length).toBeLessThanOrEqual(defaultStagingBytes);
  });
});

describe("bounded JSON output", () => {
  test("an item whose JSON is exactly stagingBytes is served whole; one byte more is a JSON 500", async () => {
    const [atLimit, overLimit] = await Promise.all([
      get("/items/at-limit"),
      get("/items/over-limit"),
    ]);
    const catalogue = createCatalogue(defaultStagingBytes);
    expect({ atLimit, overLimit }).toEqual({
      atLimit: {
        status: 200,
        type: "application/json",
        length: defaultStagingBytes,
        json: catalogue.find(({ id }) => id === "at-limit"),
      },
      overLimit: {
        status: 500,
        type: "application/json",
        length: 66,
        json: { error: "response too large", id: "over-limit", limitBytes: defaultStagingBytes },
      },
    });
  });

  test("the limit counts UTF-8 bytes, not characters", async () => {
    const wide = item("wide", "é".repeat(300));
    const bytes = jsonByteLength(wide);
    expect(JSON.stringify(wide).length).toBeLessThan(bytes - 1); // a character count would pass
    const fits = makeApp({ stagingBytes: bytes, items: [wide] });
    const over = makeApp({ stagingBytes: bytes - 1, items: [wide] });
    const [served, refused] = await Promise.all([
      get("/items/wide", fits),
      get("/items/wide", over),
    ]);
    expect([served.status, served.length, served.json, refused.status, refused.json]).toEqual([
      200,
      bytes,
      wide,
      500,
      { error: "response too large", id: "wide", limitBytes: bytes - 1 },
    ]);
  });

  test("a listing too large for staging is a JSON 500 as well, while single items still serve", async () => {
    const many = Array.from({ length: 20 }, (_, index) => item(`item-${index}`, `Item ${index}`));
    const small = makeApp({ stagingBytes: 512, items: many });
    const [listing, single] = await Promise.all([
      get("/items", small),
      get("/items/item-3", small),
    ]);
    expect([listing.status, listing.json, single.status]).toEqual([
      500,
      { error: "response too large", limitBytes: 512 },
      200,
    ]);
  });

  test("the boundary items are padded to exact sizes; an item already over cannot be", () => {
    const mug = item("mug", "Mug");
    expect(jsonByteLength(padToJsonBytes(mug, 200))).toBe(200);
    expect(() => padToJsonBytes(mug, jsonByteLength({ ...mug, note: "" }) - 1)).toThrow(RangeError);
  });

  test("stagingBytes must hold the longest error body; at exactly that size it is served whole", async () => {
    const limit = longestErrorBytes(999);
    expect(longestErrorBytes(limit)).toBe(limit); // same number of digits in limitBytes
    expect(() => createJsonLookupApp({ stagingBytes: limit - 1 })).toThrow(RangeError);
    // The worst id: 64 control characters, each spelled \u0000 (six bytes) in JSON.
    const worstId = "\u0000".repeat(maxIdBytes);
    const poster = item(worstId, "Too big");
    expect(jsonByteLength(poster)).toBeGreaterThan(limit);
    const tight = makeApp({ stagingBytes: limit, items: [poster] });
    const [tooLarge, notFound] = await Promise.all([
      get(`/items/${"%00".repeat(maxIdBytes)}`, tight),
      get(`/items/${"%01".repeat(maxIdBytes)}`, tight),
    ]);
    expect([tooLarge.status, tooLarge.length, tooLarge.json]).toEqual([
      500,
      limit,
      { error: "response too large", id: worstId, limitBytes: limit },
    ]);
    expect([notFound.status, notFound.json]).toEqual([
      404,
      { error: "not found", id: "\u0001".repeat(maxIdBytes) },
    ]);
  });
});

describe("bun run example json-lookup", () => {
  const request = (target: string, method = "GET") =>
    `${method} ${target} HTTP/1.1\r\nHost: h\r\n\r\n`;

  /** Status line, headers but Date, and body of a wire response. */
  function wire(response: WireResponse) {
    return {
      statusLine: response.statusLine,
      headers: response.headers.filter(([name]) => name !== "date"),
      body: response.text,
    };
  }

  test("serves items, 404s, the staging boundary and malformed targets over TCP", async () => {
    await using example = await startExample("json-lookup");
    const fetched = await fetch(`${example.baseUrl}items/teapot`);
    expect([fetched.status, await fetched.json()]).toEqual([
      200,
      { id: "teapot", name: "Teapot", price: "24.50", priceCents: 2450, currency: "EUR", stock: 7 },
    ]);

    using client = await RawClient.connect(example.port);
    client.send(
      request("/items/nope") +
        request("/items/at-limit") +
        request("/items/over-limit") +
        request("/items/%FF"),
    );
    const responses = await client.responses(4);
    const json = ["content-type", "application/json"] as const;
    expect(responses.map(wire)).toEqual([
      {
        statusLine: "HTTP/1.1 404 Not Found",
        headers: [json, ["content-length", "33"]],
        body: '{"error":"not found","id":"nope"}',
      },
      {
        statusLine: "HTTP/1.1 200 OK",
        headers: [json, ["content-length", "1024"]],
        body: JSON.stringify(
          createCatalogue(defaultStagingBytes).find(({ id }) => id === "at-limit"),
        ),
      },
      {
        statusLine: "HTTP/1.1 500 Internal Server Error",
        headers: [json, ["content-length", "66"]],
        body: '{"error":"response too large","id":"over-limit","limitBytes":1024}',
      },
      {
        statusLine: "HTTP/1.1 400 Bad Request",
        headers: [json, ["content-length", "69"]],
        body: '{"error":"malformed id","reason":"its percent-encoding is not UTF-8"}',
      },
    ]);
  });

  test("HEAD of the item at the limit sends its length and no body", async () => {
    await using example = await startExample("json-lookup");
    using client = await RawClient.connect(example.port);
    // The next response follows the HEAD head directly: proof that no body was sent.
    client.send(request("/items/at-limit", "HEAD") + request("/items/nope"));
    await client.waitFor(() => client.receivedText.endsWith('"id":"nope"}'), "both responses");
    const text = client.receivedText.replace(/^Date: .*\r\n/gm, "");
    expect(text).toBe(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n" +
        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 33\r\n\r\n" +
        '{"error":"not found","id":"nope"}',
    );
  });

  test("an escape that is not % and two hex digits is refused by the engine, before the app", async () => {
    await using example = await startExample("json-lookup");
    using client = await RawClient.connect(example.port);
    client.send(request("/items/%ZZ"));
    const response = await client.response();
    await client.waitForClose();
    expect([response.statusLine, response.header("content-type"), response.text]).toEqual([
      "HTTP/1.1 400 Bad Request",
      "text/plain; charset=utf-8",
      "Bad Request: malformed request\n",
    ]);
  });
});
