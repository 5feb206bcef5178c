import { RawClient } from "../../../engine/test/support/raw-client.ts";

/** Asks `GET /pid` on one fresh connection; the answer is the pid of the process that served it. */
export async function pidOnFreshConnection(port: number): Promise<number> {
  using client = await RawClient.connect(port);
  client.send("GET /pid HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const response = await client.response();
  if (response.status !== 200) throw new Error(`GET /pid answered ${response.statusLine}`);
  return Number(response.text);
}

/**
 * Opens fresh connections until every pid of `expected` has served one (the kernel spreads
 * connections over the processes), at most `maxConnections` (all of them when `expected` is
 * empty); returns the pids seen, sorted.
 */
export async function servingPids(
  port: number,
  expected: readonly number[],
  maxConnections = 400,
): Promise<number[]> {
  const seen = new Set<number>();
  for (let count = 0; count < maxConnections; count++) {
    seen.add(await pidOnFreshConnection(port));
    if (expected.length > 0 && expected.every((pid) => seen.has(pid))) break;
  }
  return [...seen].sort((a, b) => a - b);
}

/** Polls `condition` every 10 ms until it holds; fails with `what` after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** True while a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `port` refuses connections: every process of the group stopped accepting. */
export async function waitUntilRefused(port: number): Promise<void> {
  await waitUntil(async () => {
    try {
      (await RawClient.connect(port)).destroy();
      return false;
    } catch {
      return true;
    }
  }, `port ${port} to refuse connections`);
}
