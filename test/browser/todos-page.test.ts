import { expect, test } from "bun:test";
import { startExample } from "../examples/support/start-example.ts";
import { hasChromium, launchChromium } from "./browser.ts";

// Waits go through locators: the page's CSP (script-src 'self') forbids the string evaluation
// waitForFunction would need, and that is the CSP under test.
test.skipIf(!hasChromium)(
  "the todos page lists, adds, ticks and deletes todos through the API, under its CSP",
  async () => {
    await using example = await startExample("todos");
    await fetch(`${example.baseUrl}api/todos`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "already there" }),
    });
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    await page.goto(example.baseUrl);
    await page.locator('#todos li[data-id="1"]').waitFor();
    await page.locator("#title").fill("buy milk");
    await page.locator("#add button").click();
    await page.locator('#todos li[data-id="2"]').waitFor();
    await page.locator('#todos li[data-id="2"] input[type="checkbox"]').check();
    await page.locator('#todos li.done[data-id="2"]').waitFor();
    await page.locator('#todos li[data-id="1"] button.delete').click();
    await page.locator('#todos li[data-id="1"]').waitFor({ state: "detached" });
    const shown = {
      items: await page.locator("#todos li span").allTextContents(),
      count: await page.locator("#count").textContent(),
      error: await page.locator("#error").textContent(),
    };
    const stored = await (await fetch(`${example.baseUrl}api/todos`)).json();
    expect({ shown, stored, consoleErrors }).toEqual({
      shown: { items: ["buy milk"], count: "1 todo", error: "" },
      stored: { items: [{ id: 2, title: "buy milk", done: true }], next: null },
      consoleErrors: [],
    });
  },
  30_000,
);
