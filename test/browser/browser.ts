import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs. */
export const chromiumPath = "/usr/bin/chromium";

/** Whether the browser tests can run here; they are skipped, with a message, when not. */
export const hasChromium = existsSync(chromiumPath);

if (!hasChromium) {
  console.warn(
    `browser tests skipped: ${chromiumPath} is missing (apt-get install -y chromium; .ci/run does this)`,
  );
}

/**
 * Headless Chromium with the flags this sandbox needs (no background network, no sandbox); each
 * launch gets a fresh temporary profile from Playwright.
 */
export async function launchChromium(): Promise<Browser & AsyncDisposable> {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      await browser.close();
    },
  });
}

/**
 * Page code (as text: the project type-checks against Bun's globals, not the DOM's) that calls
 * `window.recordPercent` with the text of `#percent` each time it changes; expose that function
 * with `page.exposeFunction` before loading the page.
 */
export const recordPercentChanges = `
  (() => {
    const observe = () => {
      const percent = document.querySelector("#percent");
      if (percent === null) return void setTimeout(observe, 10);
      new MutationObserver(() => window.recordPercent(percent.textContent ?? ""))
        .observe(percent, { childList: true, characterData: true, subtree: true });
    };
    observe();
  })();
`;
