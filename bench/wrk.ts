/** One wrk run: where to send load, how much, and for how long. */
export interface WrkOptions {
  /** Full URL on 127.0.0.1. */
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Requests per write; more than 1 uses bench/pipeline.lua. */
  readonly pipelineDepth: number;
  /** Prefix that pins wrk to its core (e.g. `taskset -c 1`), empty for none. */
  readonly pinPrefix: readonly string[];
  /** Request header lines (`If-None-Match: "x"`) sent with every request. */
  readonly headers?: readonly string[];
  /** wrk's per-request timeout (its default is 2 s), for large bodies on a busy machine. */
  readonly timeoutSeconds?: number;
  /** A wrk Lua script making the requests (a mix of routes, bodies); not with `pipelineDepth`. */
  readonly script?: string;
}

/** What wrk reported, in plain units. */
export interface WrkResult {
  readonly requests: number;
  readonly durationSeconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bytesRead: number;
  readonly transferMiBPerSecond: number;
  readonly socketErrors: {
    readonly connect: number;
    readonly read: number;
    readonly write: number;
    readonly timeout: number;
  };
  readonly non2xx3xx: number;
  readonly command: string;
}

const pipelineScript = `${import.meta.dir}/pipeline.lua`;
/** Time wrk gets beyond its duration (start-up, last responses) before it is killed. */
const wrkGraceMs = 30_000;

/** Whether the wrk binary is on PATH. */
export function wrkAvailable(): boolean {
  return Bun.which("wrk") !== null;
}

/** Runs wrk once (time-bounded) and parses its text output. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  if (options.script !== undefined && options.pipelineDepth > 1) {
    throw new Error("bench: a wrk script and pipelining are two scripts; give one");
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(options.url)) {
    throw new Error(`bench: load goes to 127.0.0.1 only, not ${options.url}`);
  }
  const command = [
    ...options.pinPrefix,
    "wrk",
    "-t1",
    `-c${options.connections}`,
    `-d${options.durationSeconds}s`,
    "--latency",
    ...(options.headers ?? []).flatMap((line) => ["-H", line]),
    ...(options.timeoutSeconds === undefined ? [] : ["--timeout", `${options.timeoutSeconds}s`]),
    ...(options.pipelineDepth > 1 ? ["-s", pipelineScript] : []),
    ...(options.script === undefined ? [] : ["-s", options.script]),
    options.url,
    ...(options.pipelineDepth > 1 ? ["--", String(options.pipelineDepth)] : []),
  ];
  const child = Bun.spawn(command, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(
    () => child.kill("SIGKILL"),
    options.durationSeconds * 1000 + wrkGraceMs,
  );
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(killer);
  if (exitCode !== 0) {
    throw new Error(`wrk exited with ${exitCode}: ${command.join(" ")}\n${stdout}${stderr}`);
  }
  return parseWrkOutput(stdout, command.join(" "));
}

/** Parses wrk 4.x output (run with --latency). Exported for checking against saved output. */
export function parseWrkOutput(output: string, command: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+\w+), ([\d.]+\w+) read/.exec(output);
  if (total === null) throw new Error(`unexpected wrk output:\n${output}`);
  const requestsPerSecond = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const transfer = /Transfer\/sec:\s+([\d.]+\w+)/.exec(output);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  return {
    requests: Number(total[1]),
    durationSeconds: timeMs(total[2]!) / 1000,
    requestsPerSecond: Number(requestsPerSecond?.[1] ?? Number.NaN),
    p50Ms: percentileMs(output, "50"),
    p99Ms: percentileMs(output, "99"),
    bytesRead: binaryBytes(total[3]!),
    transferMiBPerSecond: binaryBytes(transfer?.[1] ?? "NaNB") / (1024 * 1024),
    socketErrors: {
      connect: Number(errors?.[1] ?? 0),
      read: Number(errors?.[2] ?? 0),
      write: Number(errors?.[3] ?? 0),
      timeout: Number(errors?.[4] ?? 0),
    },
    non2xx3xx: Number(non2xx?.[1] ?? 0),
    command,
  };
}

/**
 * A percentile from the --latency distribution, or NaN when wrk has none. With pipelined
 * requests wrk 4.x prints 0.00us for high percentiles (wg/wrk#236), so 0 counts as missing.
 */
function percentileMs(output: string, percentile: string): number {
  const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+\\w+)$`, "m").exec(output);
  const value = match === null ? 0 : timeMs(match[1]!);
  return value > 0 ? value : Number.NaN;
}

const timeUnitsMs: Readonly<Record<string, number>> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** wrk's times: "812.00us", "1.23ms", "5.00s", "1.00m". */
function timeMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (match === null) throw new Error(`unexpected wrk time "${text}"`);
  return Number(match[1]) * timeUnitsMs[match[2]!]!;
}

const binaryUnits: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};

/** wrk's byte counts use 1024-based units: "14.53MB", "2.91GB", "512.00B". */
function binaryBytes(text: string): number {
  const match = /^([\d.]+|NaN)([KMGT]?B)$/.exec(text);
  if (match === null) throw new Error(`unexpected wrk byte count "${text}"`);
  return Number(match[1]) * binaryUnits[match[2]!]!;
}
