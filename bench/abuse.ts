// The `abuse` scenario: each attack of issue "No client can deny service to other clients"
// against a corral server and the same work on Bun.serve, each server in its own process. While
// the attack runs, a side client (its own process) sends a request every 50 ms on a new
// connection; the table shows its worst latency and the server's peak RSS. No wrk: the attackers
// are raw sockets in this (orchestrator) process; it and the side client run on the load core.
import type { EngineStats } from "corral/engine";
import { type AbuseAttack, type AbuseAttackId, attacks, sideRequest } from "./abuse-attacks.ts";
import { ensureOpenFiles } from "./open-files.ts";
import type { Pinning } from "./pinning.ts";
import { RssSampler, readRss, toMiB } from "./process-metrics.ts";
import { ServerProcess } from "./server-process.ts";
import { requestOnce, type SideResult } from "./side-client.ts";
import { SideProcess } from "./side-process.ts";
import { runtimeHeadroomMiB } from "./targets.ts";

/** Which server an abuse run attacked. */
export type AbuseServer = "corral" | "bun-serve";
export const abuseServerLabels: Readonly<Record<AbuseServer, string>> = {
  corral: "corral",
  "bun-serve": "Bun.serve",
};

/** One attack on one server. */
export interface AbuseRun {
  readonly attack: AbuseAttackId;
  readonly title: string;
  readonly server: AbuseServer;
  readonly windowSeconds: number;
  readonly side: SideResult | null;
  /** Highest of the 100 ms VmRSS samples and VmHWM at the end of the window, in MiB. */
  readonly peakRssMiB: number;
  /** VmRSS when the window (and the side client's grace) ended, the attack still on, in MiB. */
  readonly rssAtEndMiB: number;
  /**
   * The corral server's reservation, and its limit: the reservation + 48 MiB of runtime +
   * `maxUnreadInputBytes` (null for Bun.serve).
   */
  readonly reservedMiB: number | null;
  readonly rssLimitMiB: number | null;
  readonly budget: string | null;
  /** What the attackers saw, in a few words. */
  readonly outcome: string;
  /** The corral server's counters, taken at the end of the window with the attack still on. */
  readonly stats: EngineStats | null;
  /** The window ended early because the server's RSS passed `rssCapMiB`. */
  readonly rssCapped: boolean;
  readonly error: string | null;
}

/** How to run the scenario. */
export interface AbusePlan {
  readonly windowSeconds: number;
  readonly pinning: Pinning;
  readonly repoRoot: string;
  /** Prints a progress line. */
  readonly log: (text: string) => void;
}

/** The side client's period between requests. */
const sidePeriodMs = 50;
/** Answers still due when the window ends get this long before they count as unanswered. */
const graceMs = 2_000;
/** A server growing past this ends its window early, to keep the machine usable. */
export const rssCapMiB = 4_096;
/** The widest attack (2 x 1024 connections), the side client's connections, stdio and spare. */
const openFiles = 2 * 1024 + 1024;

/** Runs every attack on its servers, one after another; a failed run is recorded, not thrown. */
export async function runAbuse(plan: AbusePlan): Promise<AbuseRun[]> {
  ensureOpenFiles(openFiles, "abuse scenario", () => "run the bench without the abuse scenario");
  const runs: AbuseRun[] = [];
  for (const attack of attacks) {
    const servers: [AbuseServer, string][] = [
      ["corral", attack.corral],
      ["bun-serve", attack.bun],
    ];
    for (const [server, script] of servers) {
      plan.log(`  abuse: ${attack.title} / ${abuseServerLabels[server]} ... `);
      const run = await runAttack(plan, attack, server, script);
      plan.log(`${describe(run)}\n`);
      runs.push(run);
    }
  }
  return runs;
}

function describe(run: AbuseRun): string {
  if (run.error !== null) return `FAILED: ${run.error.split("\n")[0]}`;
  const side = run.side!;
  return (
    `side ${side.ok}/${side.sent} ok, worst ${side.worstMs.toFixed(0)} ms; ` +
    `peak RSS ${run.peakRssMiB.toFixed(1)} MiB; ${run.outcome}`
  );
}

async function runAttack(
  plan: AbusePlan,
  attack: AbuseAttack,
  server: AbuseServer,
  script: string,
): Promise<AbuseRun> {
  const base = {
    attack: attack.id,
    title: attack.title,
    server,
    windowSeconds: plan.windowSeconds,
  };
  const serverProcess = await ServerProcess.start({
    script: `${import.meta.dir}/servers/${script}`,
    args: attack.serverArgs?.() ?? [],
    pinPrefix: plan.pinning.server,
    cwd: plan.repoRoot,
    openFiles,
  });
  const request = sideRequest(attack);
  let running: Awaited<ReturnType<AbuseAttack["launch"]>> | null = null;
  let side: SideProcess | null = null;
  let stopped = false;
  try {
    const check = await requestOnce(serverProcess.port, request, 5_000);
    if (check !== 200) throw new Error(`the side request answered ${check} before any attack`);
    const sampler = new RssSampler(serverProcess.pid);
    sampler.start(100);
    running = await attack.launch(serverProcess.port);
    side = await SideProcess.start({
      port: serverProcess.port,
      request,
      periodMs: sidePeriodMs,
      graceMs,
      pinPrefix: plan.pinning.load,
    });
    const rssCapped = await windowElapses(serverProcess.pid, plan.windowSeconds * 1000);
    const sideResult = await side.finish();
    const rss = readRss(serverProcess.pid);
    const peakMiB = Math.max(sampler.stop().maxMiB, rss.peakMiB);
    const outcome = running.outcome();
    const info = serverProcess.jsonLine<{
      budget: string;
      reservedBytes: number;
      maxUnreadInputBytes: number;
    }>("INFO ");
    // Stopped before the attackers leave, so a corral server's counters show the attack on.
    await serverProcess.stop();
    stopped = true;
    const reservedMiB = info === undefined ? null : toMiB(info.reservedBytes);
    return {
      ...base,
      side: sideResult,
      peakRssMiB: peakMiB,
      rssAtEndMiB: rss.rssMiB,
      reservedMiB,
      rssLimitMiB:
        info === undefined || reservedMiB === null
          ? null
          : reservedMiB + runtimeHeadroomMiB + toMiB(info.maxUnreadInputBytes),
      budget: info?.budget ?? null,
      outcome,
      stats: serverProcess.jsonLine<EngineStats>("STATS ") ?? null,
      rssCapped,
      error: null,
    };
  } catch (error) {
    const stderr = serverProcess.stderrText;
    return {
      ...base,
      side: null,
      peakRssMiB: Number.NaN,
      rssAtEndMiB: Number.NaN,
      reservedMiB: null,
      rssLimitMiB: null,
      budget: null,
      outcome: running?.outcome() ?? "",
      stats: null,
      rssCapped: false,
      error: `${(error as Error).message}${stderr ? `\nserver stderr:\n${stderr}` : ""}`,
    };
  } finally {
    side?.kill();
    if (!stopped) await serverProcess.stop();
    running?.stop();
  }
}

/** Waits `windowMs`; returns true early if the server's RSS passes `rssCapMiB`. */
async function windowElapses(pid: number, windowMs: number): Promise<boolean> {
  const end = performance.now() + windowMs;
  while (performance.now() < end) {
    await Bun.sleep(Math.min(100, end - performance.now()));
    try {
      if (readRss(pid).rssMiB > rssCapMiB) return true;
    } catch {
      return false;
    }
  }
  return false;
}
