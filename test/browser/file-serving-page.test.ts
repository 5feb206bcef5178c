import { expect, test } from "bun:test";
import { startExample } from "../examples/support/start-example.ts";
import { hasChromium, launchChromium } from "./browser.ts";

test.skipIf(!hasChromium)(
  "a person sees the file-serving page rendered in Chromium",
  async () => {
    await using example = await startExample("file-serving");
    await using browser = await launchChromium();
    const page = await browser.newPage();
    const response = await page.goto(example.baseUrl);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("corral: file serving");
    expect(await page.locator("#title").textContent()).toBe("Served by corral");
    expect(await page.locator("#title").isVisible()).toBe(true);
    const box = await page.locator("#how").boundingBox();
    expect(box !== null && box.width > 100 && box.height > 10).toBe(true);
  },
  30_000,
);
