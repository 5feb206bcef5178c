import type { EngineStats } from "corral/engine";

/** The counters of a group of processes started by `serve()`. */
export interface GroupStats {
  /**
   * Processes that answered (those between a death and their restart are missing, and those
   * listed in `unanswered`).
   */
  readonly processes: number;
  /** Processes restarted since start because they died (hung ones included). */
  readonly restarts: number;
  /** Of `restarts`, those of a process killed because it left its liveness pings unanswered. */
  readonly hungRestarts: number;
  /** Processes killed because they did not listen within `startDeadlineMs` (each restarted). */
  readonly startTimeouts: number;
  /**
   * Every counter summed over the processes. Peaks are summed too, so a group peak is an upper
   * bound: the processes may have peaked at different times.
   */
  readonly total: EngineStats;
  /** Each process's own counters. */
  readonly perProcess: ReadonlyArray<{ readonly pid: number; readonly stats: EngineStats }>;
  /**
   * Process ids of the processes asked that did not answer within `livenessDeadlineMs` (busy or
   * hung; a hung one is killed and restarted by the liveness check), or that exited before
   * answering. Empty when all answered.
   */
  readonly unanswered: readonly number[];
}

type Counters = { readonly [name: string]: number | Counters | undefined };

/** Sums counters field by field, nested records (responses, errors) included. */
export function sumStats(list: readonly EngineStats[]): EngineStats {
  const total: Record<string, unknown> = {};
  for (const stats of list) addInto(total, stats as unknown as Counters);
  return total as unknown as EngineStats;
}

function addInto(total: Record<string, unknown>, counters: Counters): void {
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value === "number") total[name] = ((total[name] as number | undefined) ?? 0) + value;
    else if (value !== undefined) {
      total[name] ??= {};
      addInto(total[name] as Record<string, unknown>, value);
    }
  }
}
