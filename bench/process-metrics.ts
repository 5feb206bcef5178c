import { readFileSync } from "node:fs";

const mebibyte = 1024 * 1024;

/** Kernel clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
export function clockTicksPerSecond(): number {
  const result = Bun.spawnSync(["getconf", "CLK_TCK"]);
  const ticks = Number(result.stdout.toString().trim());
  return result.exitCode === 0 && Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function readCpuSeconds(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  // The command name may contain spaces and parentheses: fields are counted after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 3 (state) is fields[0]; utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / ticksPerSecond;
}

/** Resident set size now (VmRSS) and its peak since start (VmHWM), in MiB. */
export interface RssReading {
  readonly rssMiB: number;
  readonly peakMiB: number;
}

/** Reads VmRSS and VmHWM from /proc/<pid>/status. */
export function readRss(pid: number): RssReading {
  const status = readFileSync(`/proc/${pid}/status`, "latin1");
  return { rssMiB: statusKiB(status, "VmRSS") / 1024, peakMiB: statusKiB(status, "VmHWM") / 1024 };
}

function statusKiB(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (match === null) throw new Error(`/proc status has no ${field} line`);
  return Number(match[1]);
}

/** Samples a process's VmRSS on a fixed period and keeps the highest value seen. */
export class RssSampler {
  readonly #pid: number;
  #timer: ReturnType<typeof setInterval> | null = null;
  #maxMiB = 0;
  #samples = 0;

  constructor(pid: number) {
    this.#pid = pid;
  }

  start(periodMs = 100): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), periodMs);
  }

  /** Stops sampling (after one last sample) and returns the highest VmRSS seen, in MiB. */
  stop(): { readonly maxMiB: number; readonly samples: number } {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#sample();
    return { maxMiB: this.#maxMiB, samples: this.#samples };
  }

  #sample(): void {
    try {
      const { rssMiB } = readRss(this.#pid);
      this.#samples++;
      if (rssMiB > this.#maxMiB) this.#maxMiB = rssMiB;
    } catch {
      // The process is gone; the caller notices when it stops the run.
    }
  }
}

/** Bytes as MiB. */
export function toMiB(bytes: number): number {
  return bytes / mebibyte;
}
