import { expect, test } from "bun:test";
import { startExample } from "../examples/support/start-example.ts";
import { hasChromium, launchChromium } from "./browser.ts";

// Page code is given as text: this project type-checks against Bun's globals, not the DOM's.
const inRoom = (room: string) =>
  `document.querySelector("#status")?.textContent === "in room ${room}"`;
const logHas = (count: number) => `document.querySelectorAll("#log li").length >= ${count}`;

test.skipIf(!hasChromium)(
  "two Chromium pages in one room see each other's messages, in order, their own included",
  async () => {
    await using example = await startExample("chat");
    await using browser = await launchChromium();
    const pages = [await browser.newPage(), await browser.newPage()];
    for (const page of pages) {
      await page.goto(example.baseUrl);
      await page.fill("#room", "garden");
      await page.click("#join button");
      await page.waitForFunction(inRoom("garden"), undefined, { timeout: 10_000 });
    }
    await pages[0]!.fill("#message", "hello from one");
    await pages[0]!.click("#send");
    await pages[0]!.waitForFunction(logHas(1), undefined, { timeout: 10_000 });
    await pages[1]!.fill("#message", "and from two");
    await pages[1]!.click("#send");
    for (const page of pages) await page.waitForFunction(logHas(2), undefined, { timeout: 10_000 });
    const logs = await Promise.all(pages.map((page) => page.locator("#log li").allTextContents()));
    expect(logs).toEqual([
      ["hello from one", "and from two"],
      ["hello from one", "and from two"],
    ]);
  },
  30_000,
);
