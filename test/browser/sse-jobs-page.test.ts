import { expect, test } from "bun:test";
import { startExample } from "../examples/support/start-example.ts";
import { hasChromium, launchChromium, recordPercentChanges } from "./browser.ts";

// Code that runs inside the page is given as text: this project type-checks against Bun's
// globals, not the DOM's.
const jobDone = `document.querySelector("#status")?.textContent === "done"`;

test.skipIf(!hasChromium)(
  "the sse-jobs page's progress bar reaches 100% from live SSE events",
  async () => {
    await using example = await startExample("sse-jobs");
    await using browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(example.baseUrl);
    await page.waitForFunction(jobDone, undefined, { timeout: 15_000, polling: 50 });
    expect({
      percent: await page.locator("#percent").textContent(),
      bar: await page
        .locator("#bar")
        .evaluate((bar) => (bar as unknown as { value: number }).value),
      status: await page.locator("#status").textContent(),
      barVisible: await page.locator("#bar").isVisible(),
    }).toEqual({ percent: "100%", bar: 100, status: "done", barVisible: true });
  },
  30_000,
);

test.skipIf(!hasChromium)(
  "the progress bar moves through intermediate values before 100%",
  async () => {
    await using example = await startExample("sse-jobs");
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const values: string[] = [];
    await page.exposeFunction("recordPercent", (text: string) => values.push(text));
    await page.addInitScript({ content: recordPercentChanges });
    await page.goto(example.baseUrl);
    await page.waitForFunction(jobDone, undefined, { timeout: 15_000 });
    const numbers = values
      .map((text) => Number.parseInt(text, 10))
      .filter((value) => !Number.isNaN(value));
    expect(numbers.at(-1)).toBe(100);
    expect(numbers.filter((value) => value > 0 && value < 100).length).toBeGreaterThanOrEqual(3);
    expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
  },
  30_000,
);

// Opens an EventSource on the finished job's stream and resolves with its state after the first
// error: CLOSED (2) when the server answered 204, CONNECTING (0) when it would reconnect.
const reopenFinishedJob = `
  new Promise((resolve) => {
    const job = document.querySelector("#job")?.textContent;
    const source = new EventSource("/jobs/" + job + "/events");
    const events = [];
    source.addEventListener("progress", (event) => events.push(event.data));
    source.addEventListener("error", () => {
      resolve({ readyState: source.readyState, events: events.length });
      source.close();
    });
  })
`;

test.skipIf(!hasChromium)(
  "an EventSource reopened on a finished job is answered 204 and stops reconnecting",
  async () => {
    await using example = await startExample("sse-jobs");
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const eventStreamStatuses: number[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith("/events")) eventStreamStatuses.push(response.status());
    });
    await page.goto(example.baseUrl);
    await page.waitForFunction(jobDone, undefined, { timeout: 15_000, polling: 50 });
    const reopened = await page.evaluate(reopenFinishedJob);
    expect({ reopened, eventStreamStatuses }).toEqual({
      reopened: { readyState: 2, events: 0 },
      eventStreamStatuses: [200, 204],
    });
  },
  30_000,
);
