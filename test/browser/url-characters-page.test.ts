import { expect, test } from "bun:test";
import { App, decodeText, formDecodeInto } from "corral";
import { listenQuietly } from "../support/listen-quietly.ts";
import { hasChromium, launchChromium } from "./browser.ts";

const page = `<!doctype html>
<title>search</title>
<form method="get" action="/search/[all]">
  <input name="files[]" value="a{}|^b">
  <button id="submit">Search</button>
</form>
<a id="link" href="/search/[all]?files[]=x&q={a}&a=b|c&x=^">again</a>`;

/** Echoes the target as the browser sent it and the decoded query entries. */
function searchApp(): App<object> {
  const app = new App({ shared: {} });
  const buffer = new Uint8Array(256);
  app.route("GET", "/", (ctx) =>
    ctx.response.bytes(200, "text/html; charset=utf-8", new TextEncoder().encode(page)),
  );
  app.route("GET", "/search/[all]", (ctx) => {
    const entries = [...ctx.request.query()].map(({ nameRaw, valueRaw }) => [
      decodeText(formDecodeInto(nameRaw, buffer)),
      decodeText(formDecodeInto(valueRaw, buffer)),
    ]);
    ctx.response.json(200, { target: ctx.request.target, entries });
  });
  return app;
}

test.skipIf(!hasChromium)(
  "Chromium submits a GET form with a files[] field and a {}|^ value, and follows a raw link: 200",
  async () => {
    const app = searchApp();
    const server = listenQuietly(app);
    await using browser = await launchChromium();
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${server.port}/`);

    const submitted = tab.waitForResponse((response) => response.url().includes("/search/"));
    await tab.click("#submit");
    const form = await submitted;
    const formAnswer = [form.status(), await form.json()];

    await tab.goBack();
    const followed = tab.waitForResponse((response) => response.url().includes("/search/"));
    await tab.click("#link");
    const link = await followed;
    const linkAnswer = [link.status(), await link.json()];

    expect({ formAnswer, linkAnswer }).toEqual({
      // Chromium encodes form fields but sends the action's [ ] raw.
      formAnswer: [
        200,
        {
          target: "/search/[all]?files%5B%5D=a%7B%7D%7C%5Eb",
          entries: [["files[]", "a{}|^b"]],
        },
      ],
      // A link's query goes out as written: [ ] { } | ^ raw.
      linkAnswer: [
        200,
        {
          target: "/search/[all]?files[]=x&q={a}&a=b|c&x=^",
          entries: [
            ["files[]", "x"],
            ["q", "{a}"],
            ["a", "b|c"],
            ["x", "^"],
          ],
        },
      ],
    });
    await app.stop();
  },
  30_000,
);
