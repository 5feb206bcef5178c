// Every example prints the URL it listens on; opened as printed, that URL reaches the example
// (an example with no page at `/` prints one of its GET routes): 200 after any redirect (the
// sessions example sends a browser to its sign-in page), or a 401 whose challenge says how to
// sign in (the middleware example guards every route). Each example is started as a user would,
// `bun run example NAME --port 0`, with no other option.
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { startExample } from "./support/start-example.ts";

const examples = readdirSync(`${import.meta.dir}/../../examples`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "shared")
  .map((entry) => entry.name)
  .sort();

async function printedUrlStatus(name: string): Promise<string> {
  await using example = await startExample(name);
  const printed = /listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(example.startupOutput);
  if (printed === null) return `${name}: no URL in ${example.startupOutput}`;
  const response = await fetch(printed[1]!);
  await response.arrayBuffer();
  const challenged = response.status === 401 && response.headers.has("www-authenticate");
  return `${name} ${new URL(printed[1]!).pathname} ${challenged ? "challenge" : response.status}`;
}

test("the URL each example prints answers 200 or a sign-in challenge (three examples start at a time)", async () => {
  const results: string[] = [];
  for (let index = 0; index < examples.length; index += 3) {
    results.push(...(await Promise.all(examples.slice(index, index + 3).map(printedUrlStatus))));
  }
  expect(results.length).toBeGreaterThan(15);
  expect(results.filter((line) => !line.endsWith(" 200") && !line.endsWith(" challenge"))).toEqual(
    [],
  );
}, 90_000);
