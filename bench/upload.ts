// The `upload` scenario: one large PUT to corral-engine (`streamBodies`, reading
// `exchange.bodyStream()`) and to Bun.serve (reading `request.body` as a stream), into a sink that
// drops the bytes and into a file; the throughput and the server's RSS growth during the upload.
import type { Pinning } from "./pinning.ts";
import { RssSampler, readRss } from "./process-metrics.ts";
import { ServerProcess } from "./server-process.ts";
import { filePath, sinkPath } from "./servers/upload-sink.ts";
import { putGenerated } from "./upload-client.ts";

/** The upload goal of the issue: RSS growth under this while a body of any size streams in. */
export const uploadRssGrowthCapMiB = 16;

type UploadServer = "corral-engine" | "bun-serve";
const scripts: Readonly<Record<UploadServer, string>> = {
  "corral-engine": "bench/servers/corral-upload.ts",
  "bun-serve": "bench/servers/bun-serve-upload.ts",
};

/** One upload's measurement. */
export interface UploadRun {
  readonly server: UploadServer;
  readonly sink: "null" | "file";
  readonly mebibytes: number;
  readonly mibPerSecond: number;
  /** The server's VmRSS before the upload, and the most it grew during it (sampled every 20 ms). */
  readonly rssBeforeMiB: number;
  readonly rssGrowthMiB: number;
  readonly error: string | null;
}

/** How to run the scenario. */
export interface UploadPlan {
  readonly mebibytes: number;
  readonly pinning: Pinning;
  readonly repoRoot: string;
  readonly log: (text: string) => void;
}

/** Runs each server and sink once, each in a fresh server process. */
export async function runUpload(plan: UploadPlan): Promise<UploadRun[]> {
  const runs: UploadRun[] = [];
  for (const sink of ["null", "file"] as const) {
    for (const server of ["corral-engine", "bun-serve"] as const) {
      plan.log(`  upload ${plan.mebibytes} MiB to ${sink} / ${server} ... `);
      const run = await measureUpload(plan, server, sink);
      plan.log(
        run.error ??
          `${run.mibPerSecond.toFixed(0)} MiB/s, RSS growth ${run.rssGrowthMiB.toFixed(1)} MiB\n`,
      );
      if (run.error !== null) plan.log("\n");
      runs.push(run);
    }
  }
  return runs;
}

async function measureUpload(
  plan: UploadPlan,
  server: UploadServer,
  sink: "null" | "file",
): Promise<UploadRun> {
  const process = await ServerProcess.start({
    script: scripts[server],
    pinPrefix: plan.pinning.server,
    cwd: plan.repoRoot,
  });
  const totalBytes = plan.mebibytes * 1024 * 1024;
  const base = { server, sink, mebibytes: plan.mebibytes };
  try {
    const rssBeforeMiB = readRss(process.pid).rssMiB;
    const sampler = new RssSampler(process.pid);
    sampler.start(20);
    const timing = await putGenerated(
      process.port,
      sink === "null" ? sinkPath : filePath,
      totalBytes,
      120_000,
    );
    const { maxMiB } = sampler.stop();
    const error =
      timing.statusLine.endsWith(" 200 OK") && timing.body === String(totalBytes)
        ? null
        : `FAILED: ${timing.statusLine} ${timing.body.slice(0, 80)}`;
    return {
      ...base,
      mibPerSecond: plan.mebibytes / timing.seconds,
      rssBeforeMiB,
      rssGrowthMiB: maxMiB - rssBeforeMiB,
      error,
    };
  } finally {
    await process.stop();
  }
}

/** The scenario as a table, then the goal: corral at least Bun.serve's MiB/s, growth under 16 MiB. */
export function formatUpload(runs: readonly UploadRun[]): string {
  const rows = runs.map(
    (run) =>
      `| ${run.sink.padEnd(4)} | ${run.server.padEnd(13)} | ${
        run.error === null ? run.mibPerSecond.toFixed(0).padStart(5) : "  n/a"
      } | ${run.rssBeforeMiB.toFixed(1).padStart(6)} | ${run.rssGrowthMiB.toFixed(1).padStart(6)} |`,
  );
  const goals = (["null", "file"] as const).map((sink) => {
    const corral = runs.find((run) => run.sink === sink && run.server === "corral-engine");
    const bun = runs.find((run) => run.sink === sink && run.server === "bun-serve");
    if (corral === undefined || bun === undefined) return `  ${sink}: not measured`;
    const ratio = corral.mibPerSecond / bun.mibPerSecond;
    const met = ratio >= 1 && corral.rssGrowthMiB < uploadRssGrowthCapMiB;
    return (
      `  ${sink}: corral ${ratio.toFixed(2)}x Bun.serve's MiB/s, RSS growth ` +
      `${corral.rssGrowthMiB.toFixed(1)} MiB (goal: >= 1.00x, < ${uploadRssGrowthCapMiB} MiB): ` +
      (met ? "met" : "NOT met")
    );
  });
  return [
    `upload: one PUT of ${runs[0]?.mebibytes ?? 0} MiB per row, each in a fresh server process`,
    "| sink | server        | MiB/s | RSS before (MiB) | growth (MiB) |",
    "| ---- | ------------- | ----- | ------ | ------ |",
    ...rows,
    ...goals,
  ].join("\n");
}
