// The `redis-sse` scenario: N idle server-sent event streams spread over 2 instances of one App
// sharing a `RedisEventChannel` on one real redis-server, one publish on the first instance, and
// the time until the last client of either instance has it; beside it, the same App with the
// in-process `EventChannel` holding all N streams in one process, measured in the same run.
import { startRedisServer } from "../test/support/redis-server.ts";
import { ensureOpenFiles } from "./open-files.ts";
import { ServerProcess } from "./server-process.ts";
import {
  connectsInFlight,
  percentile,
  problemText,
  type SsePlan,
  spareFiles,
  waitUntil,
} from "./sse.ts";
import { SseClients } from "./sse-clients.ts";

/** One publish reaching every stream of a setup. Times in ms from the server's publish. */
export interface FanOutResult {
  /** `in-process` (one instance) or `redis` (2 instances). */
  readonly transport: "in-process" | "redis";
  readonly instances: number;
  readonly streams: number;
  /** From the first connect until every stream was subscribed on every instance. */
  readonly subscribeSeconds: number;
  /** The first broadcast (cold) and a second one a second later (warm). */
  readonly publishToLastMs: number;
  readonly arrivalP50Ms: number;
  readonly arrivalP99Ms: number;
  readonly againPublishToLastMs: number;
}

/** How to run the scenario: as `sse`, with `timeoutMs` bounding each of the two setups. */
export type RedisSsePlan = SsePlan;

/**
 * Runs the in-process setup, then the Redis one; bounded in time, and always closes the clients,
 * stops the servers and kills redis-server by its PID.
 */
export async function runRedisSse(plan: RedisSsePlan): Promise<FanOutResult[]> {
  ensureOpenFiles(
    plan.streams + spareFiles,
    "redis-sse scenario",
    (hard) => `use --sse-streams ${Math.max(2, hard - spareFiles)}`,
  );
  const inProcess = await runSetup(plan, "in-process", [plan.streams], []);
  await using redis = await startRedisServer();
  const half = Math.floor(plan.streams / 2);
  const redisRun = await runSetup(
    plan,
    "redis",
    [plan.streams - half, half],
    ["--redis", redis.url],
  );
  return [inProcess, redisRun];
}

async function runSetup(
  plan: RedisSsePlan,
  transport: FanOutResult["transport"],
  counts: readonly number[],
  extraArgs: readonly string[],
): Promise<FanOutResult> {
  const deadline = Date.now() + (plan.timeoutMs ?? 60_000);
  const servers: ServerProcess[] = [];
  const clients = counts.map((count) => new SseClients(count));
  try {
    for (const count of counts) {
      servers.push(
        await ServerProcess.start({
          script: `${import.meta.dir}/servers/corral-sse.ts`,
          pinPrefix: plan.pinning.server,
          cwd: plan.repoRoot,
          args: ["--streams", String(count), ...extraArgs],
          openFiles: count + spareFiles,
        }),
      );
    }
    const control = async (server: ServerProcess, method: string, path: string) => {
      const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, signal });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}`);
      return text;
    };
    const connectStart = performance.now();
    await Promise.all(
      clients.map((group, index) =>
        group.connect(servers[index]!.port, connectsInFlight, deadline),
      ),
    );
    const counted: number[] = counts.map(() => -1);
    await waitUntil(
      async () => {
        for (const [index, server] of servers.entries()) {
          if (clients[index]!.subscribed < counts[index]!) return false;
          counted[index] = Number(await control(server, "GET", "/subscribers"));
          if (counted[index] !== counts[index]) return false;
        }
        return true;
      },
      deadline,
      () =>
        `subscribed ${clients.map((group) => group.subscribed).join(" + ")}, ` +
        `servers count ${counted.join(" + ")} of ${counts.join(" + ")}${allProblems(clients)}`,
      20,
    );
    const subscribeSeconds = (performance.now() - connectStart) / 1000;
    await Bun.sleep(1000);
    const broadcast = async () => {
      for (const group of clients) group.resetArrivals();
      const { publishedAt } = JSON.parse(await control(servers[0]!, "POST", "/broadcast")) as {
        publishedAt: number;
      };
      await waitUntil(
        () => clients.every((group) => group.received === group.count),
        deadline,
        () =>
          `received ${clients.map((group) => group.received).join(" + ")} of ` +
          `${counts.join(" + ")}${allProblems(clients)}`,
        1,
      );
      const closedEarly = clients.reduce((sum, group) => sum + group.closedEarly, 0);
      if (closedEarly > 0) throw new Error(`${closedEarly} streams were closed early`);
      const latencies = clients
        .flatMap((group) => group.arrivals())
        .map((time) => time - publishedAt)
        .sort((a, b) => a - b);
      return { latencies, last: latencies.at(-1)! };
    };
    const first = await broadcast();
    await Bun.sleep(1000);
    const second = await broadcast();
    return {
      transport,
      instances: counts.length,
      streams: plan.streams,
      subscribeSeconds,
      publishToLastMs: first.last,
      arrivalP50Ms: percentile(first.latencies, 0.5),
      arrivalP99Ms: percentile(first.latencies, 0.99),
      againPublishToLastMs: second.last,
    };
  } catch (error) {
    const stderr = servers.map((server) => server.stderrText).join("\n");
    throw new Error(
      `redis-sse scenario (${transport}) failed: ${(error as Error).message}` +
        (stderr.trim() ? `\nserver stderr:\n${stderr}` : ""),
    );
  } finally {
    for (const group of clients) group.closeAll();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

function allProblems(clients: readonly SseClients[]): string {
  return clients.map(problemText).join("");
}

/** The scenario's lines for the report. */
export function formatRedisSse(results: readonly FanOutResult[]): string {
  const lines = results.map(
    (result) =>
      `  ${result.transport.padEnd(10)} ${result.instances} instance(s), ${result.streams} streams: ` +
      `publish to last arrival ${result.publishToLastMs.toFixed(1)} ms ` +
      `(p50 ${result.arrivalP50Ms.toFixed(1)}, p99 ${result.arrivalP99Ms.toFixed(1)}; ` +
      `again ${result.againPublishToLastMs.toFixed(1)} ms), subscribed in ` +
      `${result.subscribeSeconds.toFixed(1)} s`,
  );
  const [inProcess, redis] = results;
  if (inProcess !== undefined && redis !== undefined) {
    lines.push(
      `  redis / in-process, publish to last arrival: ` +
        `${(redis.publishToLastMs / inProcess.publishToLastMs).toFixed(2)}x ` +
        `(again ${(redis.againPublishToLastMs / inProcess.againPublishToLastMs).toFixed(2)}x)`,
    );
  }
  return `redis-sse: one publish to idle SSE streams (clients in this process):\n${lines.join("\n")}`;
}
