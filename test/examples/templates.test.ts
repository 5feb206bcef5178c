import { expect, test } from "bun:test";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import {
  createTemplatesApp,
  maxReportRows,
  reportView,
  templatesStagingBytes,
} from "../../examples/templates/templates-app.ts";
import { startExample } from "./support/start-example.ts";

const tooLargeMessage = '<p class="error">This page is too large to send. Ask for fewer rows.</p>';
const utf8 = new TextDecoder();

interface Page {
  readonly status: number;
  readonly type: string | null;
  readonly body: string;
}

async function get(app: ReturnType<typeof createTemplatesApp>, path: string): Promise<Page> {
  const response = await app.request(path);
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: await response.text(),
  };
}

// The example's templates with room for any report, to measure pages.
const measuring = createTemplatesApp(1024 * 1024).shared.templates;

/** The bytes of the report page with `rows` rows, as the example renders it. */
function reportBytes(rows: number): number {
  return Buffer.byteLength(measuring.renderString("report", reportView(rows)));
}

test("bun run example templates serves the items page and escapes user input", async () => {
  await using example = await startExample("templates");
  const items = await fetch(example.baseUrl);
  const itemsPage = await items.text();
  const hello = await fetch(`${example.baseUrl}hello?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
  const helloPage = await hello.text();
  expect({
    status: [items.status, hello.status],
    type: [items.headers.get("content-type"), hello.headers.get("content-type")],
    listed: itemsPage.match(/<li>/g)?.length,
    soldOut: itemsPage.includes(
      '<li><strong>Notebook &lt;A5&gt;</strong> €12.00 <a class="tag" href="/?tag=paper">paper</a> <a class="tag" href="/?tag=gift">gift</a> <em>sold out</em></li>',
    ),
    layout: [itemsPage, helloPage].map(
      (page) =>
        page.startsWith("<!doctype html>") && page.endsWith("</footer>\n</body>\n</html>\n"),
    ),
    greeting: helloPage.includes(
      '<p class="greeting">Hello, &lt;script&gt;alert(1)&lt;&#x2F;script&gt;!</p>',
    ),
    attribute: helloPage.includes(
      '<input name="name" value="&lt;script&gt;alert(1)&lt;&#x2F;script&gt;">',
    ),
    scriptTags: helloPage.includes("<script"),
  }).toEqual({
    status: [200, 200],
    type: ["text/html; charset=utf-8", "text/html; charset=utf-8"],
    listed: 4,
    soldOut: true,
    layout: [true, true],
    greeting: true,
    attribute: true,
    scriptTags: false,
  });
});

test("a report too large for the staging is a whole 500 error page, and the connection goes on", async () => {
  await using example = await startExample("templates");
  using client = await RawClient.connect(example.port);
  client.send(
    "GET /report?rows=5000 HTTP/1.1\r\nHost: h\r\n\r\nGET /report?rows=2 HTTP/1.1\r\nHost: h\r\n\r\n",
  );
  const [tooLarge, small] = await client.responses(2);
  const tooLargeText = utf8.decode(tooLarge!.body);
  const smallText = utf8.decode(small!.body);
  expect({
    statusLines: [tooLarge!.statusLine, small!.statusLine],
    types: [tooLarge!, small!].map((response) =>
      response.headers.filter(([name]) => name === "content-type").map(([, value]) => value),
    ),
    lengths: [tooLarge!.header("content-length"), small!.header("content-length")],
    errorPage: [tooLargeText.includes(tooLargeMessage), tooLargeText.endsWith("</html>\n")],
    rows: smallText.match(/<tr><td>/g)?.length,
    closed: client.closed,
  }).toEqual({
    statusLines: ["HTTP/1.1 500 Internal Server Error", "HTTP/1.1 200 OK"],
    types: [["text/html; charset=utf-8"], ["text/html; charset=utf-8"]],
    lengths: [String(tooLarge!.body.length), String(small!.body.length)],
    errorPage: [true, true],
    rows: 2,
    closed: false,
  });
});

test("a report exactly the size of the staging is sent whole; one more row or one byte less staging is the error page", async () => {
  const exact = reportBytes(20);
  const fits = createTemplatesApp(exact);
  const tight = createTemplatesApp(exact - 1);
  const [whole, oneRowMore, oneByteShort] = await Promise.all([
    get(fits, "/report?rows=20"),
    get(fits, "/report?rows=21"),
    get(tight, "/report?rows=20"),
  ]);
  const expected = fits.shared.templates.renderString("report", reportView(20));
  expect({
    whole: [whole.status, Buffer.byteLength(whole.body), whole.body === expected],
    errors: [oneRowMore, oneByteShort].map((page) => [
      page.status,
      page.body.includes(tooLargeMessage),
    ]),
  }).toEqual({
    whole: [200, exact, true],
    errors: [
      [500, true],
      [500, true],
    ],
  });
  await Promise.all([fits.stop(), tight.stop()]);
});

test("the default staging holds a report of a few hundred rows; a huge one stops early as the error page", async () => {
  const app = createTemplatesApp();
  let largestFitting = 0;
  while (reportBytes(largestFitting + 1) <= templatesStagingBytes) largestFitting++;
  const pages = await Promise.all(
    [largestFitting, largestFitting + 1, maxReportRows].map((rows) =>
      get(app, `/report?rows=${rows}`),
    ),
  );
  expect(largestFitting).toBeGreaterThan(200);
  expect(pages.map((page) => [page.status, page.body.includes(tooLargeMessage)])).toEqual([
    [200, false],
    [500, true],
    [500, true],
  ]);
  await app.stop();
});

test("a report's rows must be a whole number up to the bound: otherwise a 400 error page", async () => {
  const app = createTemplatesApp();
  const pages = await Promise.all(
    ["rows=abc", "rows=-1", "rows=1.5", `rows=${maxReportRows + 1}`, "rows=", "rows=0"].map(
      (query) => get(app, `/report?${query}`),
    ),
  );
  const message = `<p class="error">rows must be a whole number from 0 to ${maxReportRows}.</p>`;
  expect(pages.map((page) => [page.status, page.type, page.body.includes(message)])).toEqual([
    ...Array.from({ length: 5 }, () => [400, "text/html; charset=utf-8", true]),
    [200, "text/html; charset=utf-8", false],
  ]);
  await app.stop();
});

test("?tag= filters the items with sections; no match shows the inverted section, escaped", async () => {
  const app = createTemplatesApp();
  const [paper, none] = await Promise.all([get(app, "/?tag=paper"), get(app, "/?tag=%3Cb%3E")]);
  expect({
    paper: paper.body.match(/<strong>[^<]*/g),
    paperHeading: paper.body.includes("<p>Items tagged “paper”."),
    none: [
      none.status,
      none.body.includes("<ul"),
      none.body.includes("<p>No items tagged “&lt;b&gt;”.</p>"),
    ],
  }).toEqual({
    paper: ["<strong>Notebook &lt;A5&gt;", "<strong>Blotting paper"],
    paperHeading: true,
    none: [200, false, true],
  });
  await app.stop();
});

test("/hello greets a stranger, form-decodes the name, and refuses a name over its buffer", async () => {
  const app = createTemplatesApp();
  const [stranger, decoded, tooLong] = await Promise.all([
    get(app, "/hello"),
    get(app, "/hello?name=Ada+L%C3%B6velace%2B1"),
    get(app, `/hello?name=${"x".repeat(257)}`),
  ]);
  expect({
    stranger: stranger.body.includes("<p>Hello, stranger. Who are you?</p>"),
    decoded: decoded.body.includes('<p class="greeting">Hello, Ada Lövelace+1!</p>'),
    tooLong: [tooLong.status, tooLong.type],
  }).toEqual({
    stranger: true,
    decoded: true,
    tooLong: [400, "text/plain; charset=utf-8"],
  });
  await app.stop();
});
