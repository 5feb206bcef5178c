import { median } from "../aggregate.ts";
import {
  type DatabaseChoice,
  goalFor,
  type TechEmpowerServer,
  techEmpowerLoads,
  techEmpowerServers,
} from "./load-plan.ts";
import { type TechEmpowerRun, techEmpowerRatio } from "./run-techempower.ts";

const peers = ["bun-serve", "hono", "elysia"] as const;

/** One goal of the issue for one row, met or not. */
export interface TechEmpowerGoal {
  readonly database: DatabaseChoice;
  readonly load: string;
  readonly peer: Exclude<TechEmpowerServer, "corral">;
  readonly goal: number;
  readonly measured: number;
  readonly met: boolean;
}

/** Every goal with both sides measured. */
export function techEmpowerGoals(run: TechEmpowerRun): TechEmpowerGoal[] {
  const goals: TechEmpowerGoal[] = [];
  for (const database of ["sqlite", "postgres"] as const) {
    for (const load of techEmpowerLoads.filter((entry) => entry.databases.includes(database))) {
      for (const peer of peers) {
        const measured = techEmpowerRatio(run.measurements, database, load.id, peer);
        if (!Number.isFinite(measured)) continue;
        const goal = goalFor(load.test, peer);
        goals.push({ database, load: load.id, peer, goal, measured, met: measured >= goal });
      }
    }
  }
  return goals;
}

/**
 * One table per database: per load, each server's median requests per second, requests per
 * server CPU-second and p99 (ms), then corral's ratio to each peer per CPU-second, with the goal
 * it has to meet (`!` marks a miss). `*` marks a row with non-2xx answers or socket errors.
 */
export function formatTechEmpower(run: TechEmpowerRun): string {
  const lines: string[] = [];
  for (const database of ["sqlite", "postgres"] as const) {
    const loads = techEmpowerLoads.filter((load) => load.databases.includes(database));
    if (!run.measurements.some((entry) => entry.database === database)) continue;
    lines.push(
      `\ntechempower on ${database}${database === "postgres" ? ` (${run.postgresPinning})` : ""}:`,
    );
    const header = [
      "load".padEnd(20),
      ...techEmpowerServers.map((server) => server.label.padStart(26)),
    ];
    header.push(
      ...peers.map((peer) =>
        `/${techEmpowerServers.find((s) => s.kind === peer)!.label}`.padStart(16),
      ),
    );
    lines.push(header.join(" "));
    lines.push(
      `${"".padEnd(20)} ${techEmpowerServers.map(() => "req/s  req/CPU-s  p99 ms".padStart(26)).join(" ")}`,
    );
    for (const load of loads) {
      const cells = [load.id.padEnd(20)];
      for (const server of techEmpowerServers) {
        const runs = run.measurements.filter(
          (entry) =>
            entry.database === database && entry.load === load.id && entry.server === server.kind,
        );
        if (runs.length === 0) {
          const isInvalid = run.invalid.some(
            (entry) => entry.database === database && entry.server === server.kind,
          );
          cells.push((isInvalid ? "invalid" : "-").padStart(26));
          continue;
        }
        const flagged = runs.some((entry) => entry.non2xx3xx > 0 || entry.socketErrors > 0)
          ? "*"
          : " ";
        const of = (pick: (entry: (typeof runs)[number]) => number) => median(runs.map(pick));
        cells.push(
          `${fixed(
            of((entry) => entry.requestsPerSecond),
            0,
          )} ${fixed(
            of((entry) => entry.requestsPerCpuSecond),
            0,
          )} ${fixed(
            of((entry) => entry.p99Ms),
            1,
          )}${flagged}`.padStart(26),
        );
      }
      for (const peer of peers) {
        const ratio = techEmpowerRatio(run.measurements, database, load.id, peer);
        const goal = goalFor(load.test, peer);
        const mark = Number.isFinite(ratio) && ratio < goal ? "!" : " ";
        cells.push(
          `${Number.isFinite(ratio) ? ratio.toFixed(2) : "-"}x (>=${goal})${mark}`.padStart(16),
        );
      }
      lines.push(cells.join(" "));
    }
  }
  for (const entry of run.invalid) {
    const label = techEmpowerServers.find((server) => server.kind === entry.server)!.label;
    lines.push(
      `invalid: ${label} on ${entry.database}: ${entry.failures.map((problem) => `${problem.url}: ${problem.message}`).join("; ")}`,
    );
  }
  for (const error of run.errors) lines.push(`error: ${error}`);
  const goals = techEmpowerGoals(run);
  const met = goals.filter((goal) => goal.met).length;
  lines.push(
    `goals met: ${met} of ${goals.length} (ratios are corral / peer, requests per server CPU-second; ! = missed)`,
  );
  return lines.join("\n");
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value)
    ? value.toLocaleString("en-US", {
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
    : "-";
}
