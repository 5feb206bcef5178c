import { expect, test } from "bun:test";
import { join } from "node:path";

test("a script that only calls app.request() exits once its work is done", async () => {
  const script = Bun.spawn(["bun", join(import.meta.dir, "fixtures/request-only-script.ts")], {
    cwd: join(import.meta.dir, "../.."),
    stdout: "pipe",
    stderr: "pipe",
  });
  // A backstop against the hang this test exists for, not an expectation of time.
  const backstop = setTimeout(() => script.kill(), 15_000);
  const exitCode = await script.exited;
  clearTimeout(backstop);
  expect({ exitCode, stdout: await new Response(script.stdout).text() }).toEqual({
    exitCode: 0,
    stdout: "200 hi\n",
  });
});

/** Runs `bun <mode> fixture` to its end and returns what it printed. */
async function runListenScript(mode: "--hot" | "--watch"): Promise<string> {
  const script = Bun.spawn(["bun", mode, join(import.meta.dir, "fixtures/listen-script.ts")], {
    cwd: join(import.meta.dir, "../.."),
    stdout: "pipe",
    stderr: "pipe",
  });
  const backstop = setTimeout(() => script.kill(), 15_000);
  await script.exited;
  clearTimeout(backstop);
  return new Response(script.stdout).text();
}

test("under bun --hot, listen() refuses with the reason; under bun --watch it serves", async () => {
  expect(await runListenScript("--hot")).toBe(
    "corral: bun --hot reloads modules in the same process, where the App already listening keeps its port, its reserved memory and its old handlers; run with bun --watch instead (it restarts the process on a change)\n",
  );
  expect(await runListenScript("--watch")).toBe("listening true\n");
});
