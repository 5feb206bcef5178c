import type { RunResult } from "./measure.ts";
import type { Scenario } from "./scenarios.ts";
import type { BroadcastResult, SseResult } from "./sse.ts";
import { type RssCheck, type RunMetrics, ratio, type TargetResult } from "./targets.ts";

interface Column {
  readonly title: string;
  readonly metric: keyof RunMetrics;
  readonly digits: number;
}

const columns: readonly Column[] = [
  { title: "req/s", metric: "requestsPerSecond", digits: 0 },
  { title: "p99 ms", metric: "p99Ms", digits: 2 },
  { title: "MiB/s", metric: "mibPerSecond", digits: 1 },
  { title: "CPU s", metric: "cpuSeconds", digits: 2 },
  { title: "req/CPU-s", metric: "requestsPerCpuSecond", digits: 0 },
  { title: "peak RSS MiB", metric: "peakRssMiB", digits: 1 },
];

/** The results table: each scenario with its servers, then its ratio rows. */
export function formatTable(
  scenarios: readonly Scenario[],
  runs: readonly RunResult[],
  allRuns: readonly RunResult[],
): string {
  const rows: string[][] = [["scenario", "server", ...columns.map((column) => column.title)]];
  for (const scenario of scenarios) {
    let first = true;
    for (const server of scenario.servers) {
      const run = runs.find((item) => item.scenario === scenario.id && item.server === server.kind);
      if (run === undefined) continue;
      rows.push([
        first ? scenario.title : "",
        server.label,
        ...columns.map((column) => formatNumber(run[column.metric], column.digits)),
      ]);
      first = false;
    }
    if (first) continue;
    for (const row of scenario.ratios) {
      rows.push([
        "",
        row.label,
        ...columns.map((column) =>
          formatRatio(ratio(allRuns, scenario.id, column.metric, row.numerator, row.denominator)),
        ),
      ]);
    }
  }
  return alignRows(rows, [2, 3, 4, 5, 6, 7]);
}

function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${formatNumber(value, 2)}x` : "-";
}

/** Below this share of one core, a hello run was not server-bound: something disturbed it. */
const saturatedShare = 0.8;

/**
 * Problems that make a run's numbers suspect: socket errors, non-2xx answers, and hello runs in
 * which the server was idle for a good part of the time (on a shared or virtual machine both
 * wrk and the server sometimes stall together; req/CPU-s is the figure such runs disturb least).
 */
export function formatWarnings(
  scenarios: readonly Scenario[],
  runs: readonly RunResult[],
): string[] {
  const warnings: string[] = [];
  for (const run of runs) {
    const label = `${run.scenario} / ${run.serverLabel}`;
    const errors = run.socketErrors;
    const socketErrors = errors.connect + errors.read + errors.write + errors.timeout;
    if (socketErrors > 0 || run.non2xx3xx > 0) {
      warnings.push(
        `${label}: socket errors ${JSON.stringify(errors)}, non-2xx/3xx ${run.non2xx3xx}`,
      );
    }
    const share = run.cpuSeconds / run.durationSeconds;
    const serverBound = scenarios.find((scenario) => scenario.id === run.scenario)?.serverBound;
    if (serverBound === true && share < saturatedShare) {
      warnings.push(
        `${label}: the server was busy only ${(share * 100).toFixed(0)}% of one run ` +
          `(${Math.round(run.requestsPerSecond).toLocaleString("en-US")} req/s): likely disturbed`,
      );
    }
  }
  return warnings;
}

export function formatRssCheck(check: RssCheck): string {
  return (
    `corral RSS after ${check.loadSeconds} s of plain keep-alive load ` +
    `(${formatNumber(check.requestsPerSecond, 0)} req/s): ${check.rssMiB.toFixed(1)} MiB ` +
    `(peak ${check.peakRssMiB.toFixed(1)} MiB); reserved ${check.reservedMiB.toFixed(1)} MiB + ` +
    `48 MiB = ${check.limitMiB.toFixed(1)} MiB`
  );
}

/** The idle SSE streams scenario, as a few labelled lines. */
export function formatSse(sse: SseResult): string {
  const n = sse.streams.toLocaleString("en-US");
  const stats = sse.stats;
  const title = `idle SSE streams: ${n} clients on one corral App (4 workers); ${sse.budget}`;
  const rows: [string, string][] = [
    [
      "connected",
      `${sse.connectSeconds.toFixed(2)} s; all subscribed after ${sse.subscribeSeconds.toFixed(2)} s`,
    ],
    [
      "server RSS, after GC",
      `${sse.rssIdleMiB.toFixed(1)} MiB idle -> ${sse.rssStreamsMiB.toFixed(1)} MiB with ${n} ` +
        `streams = ${sse.rssPerStreamKiB.toFixed(2)} KiB per stream`,
    ],
    [
      "server RSS, no GC",
      `${sse.rssIdleNoGcMiB.toFixed(1)} MiB idle -> ${sse.rssStreamsNoGcMiB.toFixed(1)} MiB = ` +
        `${sse.rssPerStreamNoGcKiB.toFixed(2)} KiB per stream; peak ${sse.serverPeakRssMiB.toFixed(1)} MiB`,
    ],
    ...broadcastRows("one broadcast", sse.broadcast, sse.streams),
    ...broadcastRows("again, 1 s later", sse.secondBroadcast, sse.streams),
    [
      "client process RSS",
      `${sse.clientRssMiB.toFixed(1)} MiB with the streams open (peak ${sse.clientPeakRssMiB.toFixed(1)} MiB)`,
    ],
  ];
  if (stats !== null) {
    rows.push([
      "server counters",
      `peak connections ${stats.peakConnections}, rejected ${stats.connectionsRejected}, ` +
        `peak workers busy ${stats.peakWorkersBusy}, 2xx ${stats.responses["2xx"]}, ` +
        `5xx ${stats.responses["5xx"]}`,
    ]);
  }
  return [
    title,
    alignRows(
      rows.map(([label, text]) => [`  ${label}`, text]),
      [],
    ),
  ].join("\n");
}

function broadcastRows(label: string, b: BroadcastResult, streams: number): [string, string][] {
  const missing = b.received === streams ? "" : ` (of ${streams.toLocaleString("en-US")})`;
  return [
    [
      label,
      `publish -> last arrival ${formatNumber(b.publishToLastMs, 1)} ms; per client ` +
        `p50 ${formatNumber(b.arrivalP50Ms, 1)} ms, p99 ${formatNumber(b.arrivalP99Ms, 1)} ms, ` +
        `first ${formatNumber(b.arrivalMinMs, 2)} ms; received by ` +
        `${b.received.toLocaleString("en-US")}${missing}`,
    ],
    [
      "",
      `POST /broadcast sent -> last arrival ${formatNumber(b.requestToLastMs, 1)} ms (client ` +
        `clock); server CPU ${formatNumber(b.fanOutCpuSeconds, 2)} s`,
    ],
  ];
}

export function formatTargets(targets: readonly TargetResult[]): string {
  const rows = [["target", "goal", "measured", "result"]];
  for (const target of targets) {
    rows.push([target.name, target.goal, target.measured, target.met ? "met" : "MISSED"]);
  }
  return alignRows(rows, []);
}

/** A number with thousands separators and `digits` decimals; "-" when not finite. */
export function formatNumber(value: number, digits: number): string {
  if (!Number.isFinite(value)) return "-";
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** Pads cells into columns; columns listed in `rightAligned` are right-aligned. */
export function alignRows(
  rows: readonly (readonly string[])[],
  rightAligned: readonly number[],
): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, index) =>
          rightAligned.includes(index)
            ? cell.padStart(widths[index]!)
            : cell.padEnd(widths[index]!),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
