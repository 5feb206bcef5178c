import { expect, test } from "bun:test";
import { join } from "node:path";

/** Runs `bun <mode> fixture` to its end and returns what it printed. */
async function runServeScript(mode: "--hot" | "--watch"): Promise<string> {
  const script = Bun.spawn(["bun", mode, join(import.meta.dir, "fixtures/serve-script.ts")], {
    cwd: join(import.meta.dir, "../.."),
    stdout: "pipe",
    stderr: "pipe",
  });
  // A backstop against a group left running, not an expectation of time.
  const backstop = setTimeout(() => script.kill(), 15_000);
  await script.exited;
  clearTimeout(backstop);
  return new Response(script.stdout).text();
}

test("under bun --hot, serve() refuses with the reason listen() gives; under bun --watch it serves", async () => {
  expect(await runServeScript("--hot")).toBe(
    "corral: bun --hot reloads modules in the same process, where the App already listening keeps its port, its reserved memory and its old handlers; run with bun --watch instead (it restarts the process on a change)\n",
  );
  expect(await runServeScript("--watch")).toBe("serving 1\n");
});
