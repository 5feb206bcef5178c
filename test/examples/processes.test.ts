import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { processAlive, waitUntil } from "../supervisor/support/serving-pids.ts";
import { startExample } from "./support/start-example.ts";

const examples = readdirSync(`${import.meta.dir}/../../examples`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "shared")
  .map((entry) => entry.name)
  .sort();

/** Processes under `rootPid` (children, grandchildren...) whose command line mentions `marker`. */
function descendantsRunning(rootPid: number, marker: string): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process exited while we looked.
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let parent = parents.get(pid); parent !== undefined; parent = parents.get(parent)) {
      if (parent === rootPid) return true;
    }
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    if (!isDescendant(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  });
}

test.each(examples)(
  "%s serves on 2 processes with --processes 2 and stops them on SIGTERM",
  async (name) => {
    const command =
      name === "demo"
        ? ["bun", "run", "demo", "--port", "0", "--processes", "2"]
        : ["bun", "run", "example", name, "--port", "0", "--processes", "2"];
    const running = await startExample(name, command);
    const budget = running.startupOutput.split("\n").filter((line) => line.startsWith("corral: "));
    expect(budget.length).toBe(1);
    expect(budget[0]).toMatch(/^corral: reserved [\d.]+ MiB in total, 2 processes x \(reserved /);
    const children = descendantsRunning(running.child.pid, "child-main");
    expect(children.length).toBe(2);
    const response = await fetch(running.baseUrl);
    expect(response.status).toBeLessThan(500);
    await response.arrayBuffer();
    running.child.kill("SIGTERM");
    expect(await running.child.exited).toBe(0);
    await waitUntil(() => children.every((pid) => !processAlive(pid)), "the processes to exit");
  },
);

test("an example rejects a bad --processes with a usage error", async () => {
  const child = Bun.spawn(["bun", "run", "demo", "--port", "0", "--processes", "0"], {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toContain(
    'invalid processes "0"\nusage: bun run demo --port <0-65535> [--processes <1-1024>]',
  );
});

test("an example on a port in use with --processes 2 says so in one line and exits 1", async () => {
  // Before: the supervisor's error came out as an unhandled rejection with its stack.
  const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const child = Bun.spawn(
      ["bun", "run", "demo", "--port", String(taken.port), "--processes", "2"],
      { cwd: `${import.meta.dir}/../..`, stdout: "pipe", stderr: "pipe" },
    );
    expect(await child.exited).toBe(1);
    // Bun's script runner adds its own "$ bun run ..." and "exited with code 1" lines.
    const lines = (await new Response(child.stderr).text())
      .split("\n")
      .filter((line) => line.startsWith("corral") || line.includes(" at "));
    expect(lines).toEqual([
      `corral demo: cannot serve on port ${taken.port}: corral: 127.0.0.1:${taken.port} is in use (Failed to listen at 127.0.0.1)`,
    ]);
  } finally {
    taken.stop(true);
  }
});
