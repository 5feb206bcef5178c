import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { startExample } from "../examples/support/start-example.ts";
import { processAlive, servingPids, waitUntil, waitUntilRefused } from "./support/serving-pids.ts";

const command = `${import.meta.dir}/../../src/supervisor/corral-command.ts`;
const entry = `${import.meta.dir}/fixtures/pid-app.ts`;

test("SIGTERM to the corral command stops every process gracefully", async () => {
  const folder = mkdtempSync(`${tmpdir()}/corral-command-`);
  const started = `${folder}/started`;
  const release = `${folder}/release`;
  const group = await startExample(
    "corral",
    ["bun", command, entry, "--processes", "2", "--port", "0"],
    { env: { HOLD_STARTED_FILE: started, HOLD_RELEASE_FILE: release } },
  );
  try {
    const budgetLines = group.startupOutput
      .split("\n")
      .filter((line) => line.startsWith("corral: reserved"));
    expect(budgetLines.length).toBe(1);
    expect(budgetLines[0]).toContain("in total, 2 processes x (reserved");
    const pids = await servingPids(group.port, [], 40);
    using client = await RawClient.connect(group.port);
    client.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitUntil(() => existsSync(started), "the handler to start");
    group.child.kill("SIGTERM");
    await waitUntilRefused(group.port);
    await Bun.write(release, "go");
    const response = await client.response();
    expect({
      status: response.status,
      finished: /^finished by \d+$/.test(response.text),
      exitCode: await group.child.exited,
    }).toEqual({ status: 200, finished: true, exitCode: 0 });
    await waitUntil(() => pids.every((pid) => !processAlive(pid)), "every process to exit");
  } finally {
    await group[Symbol.asyncDispose]();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the corral command rejects a bad --processes with a usage error", async () => {
  const child = Bun.spawn(["bun", command, entry, "--processes", "zero", "--port", "0"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toContain("invalid processes");
});

test("the corral command names what is wrong: an unknown option, a missing or second entry, a missing port", async () => {
  const run = async (args: string[]) => {
    const child = Bun.spawn(["bun", command, ...args], { stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    return `${code} ${stderr.split("\n")[0]}`;
  };
  const answers = await Promise.all([
    run([entry, "--port", "0", "--procesess", "2"]),
    run(["--port", "0"]),
    run([entry, entry, "--port", "0"]),
    run([entry]),
    run([`${entry}.missing`, "--port", "0"]),
  ]);
  expect(answers).toEqual([
    '2 unknown option "--procesess"',
    "2 missing entry module",
    `2 one entry module, got 2: ${entry} ${entry}`,
    "2 missing --port",
    `1 corral: serve() found no entry module at ${entry}.missing`,
  ]);
});
