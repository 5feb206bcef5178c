import { type AbuseRun, abuseServerLabels, rssCapMiB } from "./abuse.ts";
import { alignRows, formatNumber } from "./report.ts";

/**
 * The abuse scenario as a table (side client and peak RSS per attack and server), then what the
 * attackers saw and the corral counters, one line per run.
 */
export function formatAbuse(runs: readonly AbuseRun[]): string {
  const rows: string[][] = [
    [
      "attack",
      "server",
      "side ok",
      "side p50 ms",
      "side worst ms",
      "peak RSS MiB",
      "RSS at end MiB",
      "reserved + 48 MiB + unread",
    ],
  ];
  let previous = "";
  for (const run of runs) {
    const side = run.side;
    rows.push([
      run.title === previous ? "" : run.title,
      abuseServerLabels[run.server],
      side === null ? "FAILED" : `${side.ok}/${side.sent}`,
      side === null ? "-" : formatNumber(side.p50Ms, 1),
      side === null ? "-" : `${side.unanswered > 0 ? "> " : ""}${formatNumber(side.worstMs, 0)}`,
      formatNumber(run.peakRssMiB, 1),
      formatNumber(run.rssAtEndMiB, 1),
      rssLimitCell(run),
    ]);
    previous = run.title;
  }
  const window = runs[0]?.windowSeconds ?? 0;
  const notes = runs.map(
    (run) => `  ${run.attack} / ${abuseServerLabels[run.server]}: ${note(run)}`,
  );
  return [
    `abuse: each attack for ${window} s while a side client sends a request every 50 ms on a new ` +
      `connection (latency from connect to the last byte; "> " marks a lower bound: some were ` +
      `never answered); one run per attack and server`,
    alignRows(rows, [2, 3, 4, 5, 6]),
    "",
    "what the attackers saw, side failures, corral counters at the end of the attack:",
    ...notes,
  ].join("\n");
}

function rssLimitCell(run: AbuseRun): string {
  if (run.rssLimitMiB === null) return "-";
  const within = run.peakRssMiB <= run.rssLimitMiB ? "within" : "OVER";
  return `${within} ${formatNumber(run.rssLimitMiB, 1)}`;
}

function note(run: AbuseRun): string {
  if (run.error !== null) return `FAILED: ${run.error}`;
  const parts = [run.outcome];
  const side = run.side!;
  const failures = Object.entries(side.failures);
  if (failures.length > 0) {
    parts.push(`side failures ${failures.map(([what, count]) => `${what} x ${count}`).join(", ")}`);
  }
  if (side.unanswered > 0) parts.push(`side unanswered ${side.unanswered}`);
  if (run.rssCapped) parts.push(`stopped early: RSS passed ${rssCapMiB} MiB`);
  const stats = run.stats;
  if (stats !== null) {
    parts.push(
      `blocked connections ${stats.blockedConnections}, workers held by blocked output ` +
        `${stats.workersHeldByBlockedOutput}, blocked-output closes ${stats.blockedOutputCloses}, ` +
        `idle reclaimed ${stats.idleConnectionsReclaimed}, rejected ${stats.connectionsRejected}, ` +
        `pipelined input drops ${stats.pipelinedInputDrops}, ` +
        `peak workers busy ${stats.peakWorkersBusy}, 4xx ${stats.responses["4xx"]}, ` +
        `5xx ${stats.responses["5xx"]}`,
    );
  }
  return parts.join("; ");
}
