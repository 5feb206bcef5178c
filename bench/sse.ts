// The `sse` scenario: N idle server-sent event streams on one corral App, their memory, and how
// long one broadcast takes to reach all of them. No wrk: the clients are raw sockets in this
// (orchestrator) process, which runs on the load core.
import type { EngineStats } from "corral/engine";
import { ensureOpenFiles } from "./open-files.ts";
import type { Pinning } from "./pinning.ts";
import { clockTicksPerSecond, readCpuSeconds, readRss, toMiB } from "./process-metrics.ts";
import { ServerProcess } from "./server-process.ts";
import { epochNow, SseClients } from "./sse-clients.ts";

/** Everything the scenario measures. Times in ms, memory in MiB unless named otherwise. */
export interface SseResult {
  readonly streams: number;
  readonly budget: string;
  readonly reservedMiB: number;
  /** From the first connect until every client had its head and the server counted N. */
  readonly connectSeconds: number;
  readonly subscribeSeconds: number;
  /** Server VmRSS before any stream and with N open, each read after a full GC in the server. */
  readonly rssIdleMiB: number;
  readonly rssStreamsMiB: number;
  /** (rssStreamsMiB - rssIdleMiB) / N, in KiB. */
  readonly rssPerStreamKiB: number;
  /** The same without the forced GC (garbage from accepting N requests included). */
  readonly rssIdleNoGcMiB: number;
  readonly rssStreamsNoGcMiB: number;
  readonly rssPerStreamNoGcKiB: number;
  /** Server VmHWM at the end. */
  readonly serverPeakRssMiB: number;
  /** The first broadcast: the figures the scenario reports. */
  readonly broadcast: BroadcastResult;
  /** A second broadcast a second later, with the resume path warm. */
  readonly secondBroadcast: BroadcastResult;
  /** This (client) process's VmRSS with the N clients open, and its peak so far. */
  readonly clientRssMiB: number;
  readonly clientPeakRssMiB: number;
  readonly stats: EngineStats | null;
}

/** One event published to every stream. */
export interface BroadcastResult {
  /** From the server's publish to the last client's arrival (server and client clocks). */
  readonly publishToLastMs: number;
  /** Per-client latency from publish to arrival. */
  readonly arrivalP50Ms: number;
  readonly arrivalP99Ms: number;
  readonly arrivalMinMs: number;
  /** From sending `POST /broadcast` to the last arrival, on this process's clock alone. */
  readonly requestToLastMs: number;
  /** Server CPU seconds from the broadcast request until the last arrival. */
  readonly fanOutCpuSeconds: number;
  readonly received: number;
}

/** How to run the scenario. */
export interface SsePlan {
  readonly streams: number;
  readonly pinning: Pinning;
  readonly repoRoot: string;
  /** Everything, start to close, must finish within this (the default 60 s). */
  readonly timeoutMs?: number;
}

/** Open files beyond the streams: the control connection, stdio, Bun's own descriptors. */
export const spareFiles = 256;
/** Connects in progress at once: well under the listen backlog. */
export const connectsInFlight = 128;

/**
 * Runs the scenario, bounded in time (it throws with what it saw when time runs out), and always
 * closes the clients and stops the server.
 */
export async function runSse(plan: SsePlan): Promise<SseResult> {
  const { streams } = plan;
  const deadline = Date.now() + (plan.timeoutMs ?? 60_000);
  const openFiles = streams + spareFiles;
  ensureOpenFiles(
    openFiles,
    "sse scenario",
    (hard) => `use --sse-streams ${Math.max(1, hard - spareFiles)}`,
  );

  const server = await ServerProcess.start({
    script: `${import.meta.dir}/servers/corral-sse.ts`,
    pinPrefix: plan.pinning.server,
    cwd: plan.repoRoot,
    args: ["--streams", String(streams)],
    openFiles,
  });
  const clients = new SseClients(streams);
  const base = `http://127.0.0.1:${server.port}`;
  const control = async (method: "GET" | "POST", path: string): Promise<string> => {
    const left = Math.max(1, deadline - Date.now());
    const response = await fetch(`${base}${path}`, { method, signal: AbortSignal.timeout(left) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}`);
    return text;
  };
  const collectedRss = async (): Promise<{ raw: number; collected: number }> => {
    const raw = readRss(server.pid).rssMiB;
    await control("POST", "/gc");
    await Bun.sleep(300);
    return { raw, collected: readRss(server.pid).rssMiB };
  };
  const ticks = clockTicksPerSecond();
  let stopped = false;
  try {
    const info = server.jsonLine<{ budget: string; reservedBytes: number }>("INFO ");
    if ((await control("GET", "/subscribers")) !== "0")
      throw new Error("streams before any client");
    await Bun.sleep(500);
    const idle = await collectedRss();

    const connectStart = performance.now();
    await clients.connect(server.port, connectsInFlight, deadline);
    const connectSeconds = (performance.now() - connectStart) / 1000;
    let serverCount = -1;
    await waitUntil(
      async () => {
        if (clients.subscribed < streams) return false;
        serverCount = Number(await control("GET", "/subscribers"));
        return serverCount === streams;
      },
      deadline,
      () =>
        `${clients.subscribed} of ${streams} clients subscribed, server counts ${serverCount}` +
        problemText(clients),
      20,
    );
    const subscribeSeconds = (performance.now() - connectStart) / 1000;
    await Bun.sleep(1000);
    const open = await collectedRss();
    const client = readRss(process.pid);

    const broadcast = async (): Promise<BroadcastResult> => {
      clients.resetArrivals();
      const cpuBefore = readCpuSeconds(server.pid, ticks);
      const requestedAt = epochNow();
      const { publishedAt } = JSON.parse(await control("POST", "/broadcast")) as {
        publishedAt: number;
      };
      await waitUntil(
        () => clients.received === streams,
        deadline,
        () => `${clients.received} of ${streams} clients received the event${problemText(clients)}`,
        1,
      );
      const fanOutCpuSeconds = readCpuSeconds(server.pid, ticks) - cpuBefore;
      if (clients.closedEarly > 0) {
        throw new Error(`${clients.closedEarly} streams were closed early${problemText(clients)}`);
      }
      const arrivals = clients.arrivals().sort((a, b) => a - b);
      const last = arrivals[arrivals.length - 1]!;
      const latencies = arrivals.map((time) => time - publishedAt);
      return {
        publishToLastMs: last - publishedAt,
        arrivalP50Ms: percentile(latencies, 0.5),
        arrivalP99Ms: percentile(latencies, 0.99),
        arrivalMinMs: latencies[0]!,
        requestToLastMs: last - requestedAt,
        fanOutCpuSeconds,
        received: arrivals.length,
      };
    };
    // The first broadcast runs the streams' resume path for the first time (cold code); the
    // second, a second later, shows the same fan-out warm.
    const first = await broadcast();
    await Bun.sleep(1000);
    const second = await broadcast();
    const serverPeakRssMiB = readRss(server.pid).peakMiB;

    clients.closeAll();
    await server.stop();
    stopped = true;
    return {
      streams,
      budget: info?.budget ?? "",
      reservedMiB: toMiB(info?.reservedBytes ?? Number.NaN),
      connectSeconds,
      subscribeSeconds,
      rssIdleMiB: idle.collected,
      rssStreamsMiB: open.collected,
      rssPerStreamKiB: ((open.collected - idle.collected) * 1024) / streams,
      rssIdleNoGcMiB: idle.raw,
      rssStreamsNoGcMiB: open.raw,
      rssPerStreamNoGcKiB: ((open.raw - idle.raw) * 1024) / streams,
      serverPeakRssMiB,
      broadcast: first,
      secondBroadcast: second,
      clientRssMiB: client.rssMiB,
      clientPeakRssMiB: client.peakMiB,
      stats: server.jsonLine<EngineStats>("STATS ") ?? null,
    };
  } catch (error) {
    const stderr = server.stderrText;
    throw new Error(
      `sse scenario failed: ${(error as Error).message}${stderr ? `\nserver stderr:\n${stderr}` : ""}`,
    );
  } finally {
    clients.closeAll();
    if (!stopped) await server.stop();
  }
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Polls `done` every `periodMs` until it holds; throws `describe()` once `deadline` passes. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  deadline: number,
  describe: () => string,
  periodMs: number,
): Promise<void> {
  for (;;) {
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await Bun.sleep(periodMs);
  }
}

export function problemText(clients: SseClients): string {
  return clients.problems.length === 0 ? "" : `; first problems: ${clients.problems.join("; ")}`;
}
