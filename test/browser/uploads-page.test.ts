import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExample } from "../examples/support/start-example.ts";
import { hasChromium, launchChromium, recordPercentChanges } from "./browser.ts";

// Code that runs inside the page is given as text: this project type-checks against Bun's
// globals, not the DOM's.
const stored = `document.querySelector("#status")?.textContent !== "uploading" &&
  document.querySelector("#status")?.textContent !== "choose a file"`;

test.skipIf(!hasChromium)(
  "the uploads page streams a 50 MB file with a moving progress bar; the stored file's digest matches",
  async () => {
    const scratch = mkdtempSync(join(tmpdir(), "corral-upload-page-"));
    try {
      const source = join(scratch, "source");
      const target = join(scratch, "stored");
      mkdirSync(source);
      mkdirSync(target);
      const bytes = new Uint8Array(50 * 1024 * 1024);
      for (let index = 0; index < bytes.length; index += 4096) bytes[index] = index % 251;
      const file = join(source, "fifty.bin");
      writeFileSync(file, bytes);
      const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

      await using example = await startExample("uploads", [
        "bun",
        "run",
        "example",
        "uploads",
        "--port",
        "0",
        "--dir",
        target,
      ]);
      await using browser = await launchChromium();
      const page = await browser.newPage();
      const values: string[] = [];
      await page.exposeFunction("recordPercent", (text: string) => values.push(text));
      await page.addInitScript({ content: recordPercentChanges });
      await page.goto(example.baseUrl);
      await page.locator("#file").setInputFiles(file);
      await page.locator("#send").click();
      await page.waitForFunction(stored, undefined, { timeout: 60_000, polling: 50 });
      const answer = JSON.parse((await page.locator("#result").textContent()) ?? "{}");
      const onDisk = new Bun.CryptoHasher("sha256")
        .update(await Bun.file(join(target, "fifty.bin")).bytes())
        .digest("hex");
      const numbers = values
        .map((text) => Number.parseInt(text, 10))
        .filter((value) => !Number.isNaN(value));
      expect({
        status: await page.locator("#status").textContent(),
        answer,
        onDisk,
        last: numbers.at(-1),
        moved: numbers.some((value) => value > 0 && value < 100),
      }).toEqual({
        status: "stored",
        answer: { name: "fifty.bin", size: bytes.length, sha256: digest },
        onDisk: digest,
        last: 100,
        moved: true,
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
  90_000,
);
