import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type EngineStats, formatBytes } from "corral/engine";
import { assertNotHotReloading } from "../hot-reload.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { type GroupStats, sumStats } from "./group-stats.ts";
import { livenessSettings } from "./liveness.ts";
import type { ChildMessage } from "./messages.ts";
import { restartDelayMs, stableAfterMs } from "./restart-delay.ts";
import { SupervisedProcess } from "./supervised-process.ts";

/** Options of `serve()`. */
export interface ServeOptions {
  /** Port every process binds with reusePort; 0 lets the first process pick one for all. */
  readonly port: number;
  /** Address to bind; 127.0.0.1 by default. */
  readonly hostname?: string;
  /** How many processes; the number of cores (`os.availableParallelism()`) by default. */
  readonly processes?: number;
  /**
   * Where the budget line and the notices (a hung process killed, a signal) go; `console.log` by
   * default, `null` for silence.
   */
  readonly log?: ((line: string) => void) | null;
  /** Stop every process gracefully on SIGINT or SIGTERM, then exit 0; true by default. */
  readonly handleSignals?: boolean;
  /** Grace period of the stop a signal starts; 5000 ms by default. */
  readonly graceMs?: number;
  /** How often the supervisor pings each process over IPC; 1000 ms by default (10 to 60000). */
  readonly livenessIntervalMs?: number;
  /**
   * A process that leaves a ping unanswered this long is hung (its event loop is stuck): it is
   * killed with SIGKILL and restarted. Also how long `stats()` waits for each process. 5000 ms by
   * default; at least twice `livenessIntervalMs`, at most 3600000.
   */
  readonly livenessDeadlineMs?: number;
  /**
   * A process that has not begun listening this long after its start (its entry module never
   * finished loading) is killed with SIGKILL: at the group's start `serve()` then rejects, later
   * the process is restarted like one that died. 30000 ms by default; 100 to 3600000.
   */
  readonly startDeadlineMs?: number;
}

/** A running group of processes serving one App on one port. */
export interface Supervisor {
  readonly hostname: string;
  /** The port every process serves. */
  readonly port: number;
  /** How many processes the group keeps running. */
  readonly processes: number;
  /** The budget line: the total reserved memory, N x the per-process budget. */
  readonly budget: string;
  /** Processes restarted since start because they died (hung ones included). */
  readonly restarts: number;
  /** Of `restarts`, those of a process killed because it left its liveness pings unanswered. */
  readonly hungRestarts: number;
  /** Processes killed because they did not listen within `startDeadlineMs` (each restarted). */
  readonly startTimeouts: number;
  /** Process ids of the processes running now. */
  pids(): number[];
  /**
   * The counters of every process, asked over IPC, and their sum. Waits at most
   * `livenessDeadlineMs` for each process; one that has not answered by then is left out and
   * listed in `unanswered`. Never rejects.
   */
  stats(): Promise<GroupStats>;
  /** Stops every process gracefully (see `App.stop`); resolves when all have exited. */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

const serveOptionNames = optionNames<ServeOptions>({
  port: true,
  hostname: true,
  processes: true,
  log: true,
  handleSignals: true,
  graceMs: true,
  livenessIntervalMs: true,
  livenessDeadlineMs: true,
  startDeadlineMs: true,
});

/**
 * Serves the App of `entryModule` on every core: starts `processes` Bun processes, each listening
 * on `port` with reusePort, restarts one that dies (after 100 ms, doubling to at most 5 s while it
 * keeps dying) or that hangs (its liveness pings unanswered for 5 s, or not listening 30 s after
 * its start: killed, then restarted), and prints one budget line with the total. The entry module's default export is an `App` or a
 * function returning one (called once in each process); it must not listen itself. Refuses to run
 * under `bun --hot`, as `App.listen` does: each reload would start another group.
 *
 * @example
 * // app.ts: export default () => new App({ shared: {} }).route("GET", "/", (ctx) => ...);
 * const group = await serve("./app.ts", { port: 3000, processes: 4 });
 * console.log((await group.stats()).total.requests);
 */
export async function serve(entryModule: string | URL, options: ServeOptions): Promise<Supervisor> {
  assertNotHotReloading();
  refuseUnknownOptions(options, serveOptionNames, "serve()");
  const processes = options.processes ?? availableParallelism();
  if (!Number.isInteger(processes) || processes < 1 || processes > 1024) {
    throw new RangeError(`corral: processes must be an integer from 1 to 1024, got ${processes}`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new RangeError(`corral: port must be an integer from 0 to 65535, got ${options.port}`);
  }
  const entryPath = entryModuleToPath(entryModule);
  if (entryPath.includes("$bunfs")) {
    // Inside `bun build --compile` there is no bun to start and no module file to load.
    throw new TypeError(
      "corral: serve() needs bun and the entry module on disk; a compiled executable can be run " +
        "N times with listen({ reusePort: true }) instead",
    );
  }
  if (!existsSync(entryPath)) {
    // Checked here: every process would fail to load it, each with its own stack.
    throw new TypeError(`corral: serve() found no entry module at ${entryPath}`);
  }
  const liveness = livenessSettings(options);
  const hostname = options.hostname ?? "127.0.0.1";
  if (options.port !== 0) assertPortFree(hostname, options.port);
  const graceMs = options.graceMs ?? 5000;
  const log = options.log === undefined ? console.log : options.log;
  const running = new Set<SupervisedProcess>();
  const failuresInARow: number[] = new Array(processes).fill(0);
  const restartTimers = new Set<ReturnType<typeof setTimeout>>();
  let restarts = 0;
  let hungRestarts = 0;
  let startTimeouts = 0;
  let stopping: Promise<void> | null = null;
  let port = options.port;
  let started = false;

  function start(index: number): Promise<ChildMessage & { type: "listening" }> {
    return new Promise((resolveListening, rejectListening) => {
      const child = new SupervisedProcess({
        entryPath,
        hostname,
        port,
        liveness,
        onListening: (_child, message) => resolveListening(message),
        onStartTimeout(child) {
          if (started) startTimeouts++;
          log?.(
            `corral: process ${index + 1} (pid ${child.pid}) did not listen within ` +
              `${liveness.startDeadlineMs} ms of its start (startDeadlineMs): killing it (SIGKILL)` +
              (started ? " to restart it" : ""),
          );
        },
        onHung(child) {
          log?.(
            `corral: process ${index + 1} (pid ${child.pid}) left its liveness pings unanswered ` +
              `for ${liveness.deadlineMs} ms: its event loop is stuck; killing it (SIGKILL) ` +
              "to restart it",
          );
        },
        onExit(child, exitCode) {
          running.delete(child);
          rejectListening(
            new Error(
              child.startTimedOut
                ? `corral: process ${index + 1} did not listen within ${liveness.startDeadlineMs} ms ` +
                    "of its start (startDeadlineMs); it was killed"
                : `corral: process ${index + 1} exited with code ${exitCode} before listening`,
            ),
          );
          const listened = child.listeningForMs >= 0;
          if ((started || listened) && stopping === null) {
            scheduleRestart(index, child.listeningForMs, child.hung);
          }
        },
      });
      running.add(child);
    });
  }

  function scheduleRestart(index: number, livedMs: number, hung: boolean): void {
    if (livedMs >= stableAfterMs) failuresInARow[index] = 0;
    const timer = setTimeout(
      () => {
        restartTimers.delete(timer);
        if (stopping !== null) return;
        restarts++;
        if (hung) hungRestarts++;
        start(index).catch(() => {
          // It died again before listening: its own exit scheduled the next restart.
        });
      },
      restartDelayMs(failuresInARow[index]!++),
    );
    restartTimers.add(timer);
  }

  function stop(stopOptions: { readonly graceMs?: number } = {}): Promise<void> {
    refuseUnknownOptions(stopOptions, ["graceMs"], "stop()");
    const stopGraceMs = stopOptions.graceMs ?? graceMs;
    stopping ??= (async () => {
      for (const timer of restartTimers) clearTimeout(timer);
      await Promise.all([...running].map((child) => child.stop(stopGraceMs)));
    })();
    return stopping;
  }

  let first: ChildMessage & { type: "listening" };
  try {
    // The first process binds (port 0 picks a free one); the others join it on its port.
    first = await start(0);
    port = first.port;
    await Promise.all(Array.from({ length: processes - 1 }, (_, index) => start(index + 1)));
  } catch (error) {
    await stop();
    throw error;
  }
  started = true;
  const budget =
    `corral: reserved ${formatBytes(first.reservedBytes * processes)} in total, ` +
    `${processes} processes x (${first.budget.replace(/^corral: /, "")})`;
  log?.(budget);
  if (options.handleSignals ?? true) {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.on(signal, () => {
        log?.(`corral: ${signal}: stopping ${processes} processes`);
        stop().then(() => process.exit(0));
      });
    }
  }

  let statsRequests = 0;
  return {
    hostname,
    port,
    processes,
    budget,
    get restarts() {
      return restarts;
    },
    get hungRestarts() {
      return hungRestarts;
    },
    get startTimeouts() {
      return startTimeouts;
    },
    pids: () => [...running].map((child) => child.pid),
    async stats() {
      const id = ++statsRequests;
      const children = [...running];
      const answers = await Promise.all(
        children.map((child) => child.stats(id, liveness.deadlineMs)),
      );
      const perProcess: { pid: number; stats: EngineStats }[] = [];
      const unanswered: number[] = [];
      children.forEach((child, index) => {
        const stats = answers[index]!;
        // A process asked that exited before answering (a hung one the liveness check killed
        // meanwhile, or a crash) did not answer either: which of the two came first is a race.
        if (stats === "no answer" || stats === "exited") unanswered.push(child.pid);
        else perProcess.push({ pid: child.pid, stats });
      });
      return {
        processes: perProcess.length,
        restarts,
        hungRestarts,
        startTimeouts,
        total: sumStats(perProcess.map(({ stats }) => stats)),
        perProcess,
        unanswered,
      };
    },
    stop,
  };
}

function entryModuleToPath(entryModule: string | URL): string {
  if (entryModule instanceof URL) return fileURLToPath(entryModule);
  if (typeof entryModule !== "string" || entryModule === "") {
    throw new TypeError("corral: serve() needs the path of an entry module");
  }
  if (entryModule.startsWith("file:")) return fileURLToPath(entryModule);
  return isAbsolute(entryModule) ? entryModule : resolve(entryModule);
}

/**
 * Binds `port` once without reusePort and lets it go: the processes listen with reusePort, which
 * would quietly share a port another group (or any reusePort server) already serves, the kernel
 * then splitting the clients between two Apps. Such a port is refused as `listen()` refuses a
 * port in use.
 */
function assertPortFree(hostname: string, port: number): void {
  let probe: { stop(closeActiveConnections?: boolean): void };
  try {
    probe = Bun.listen({ hostname, port, socket: { data() {} } });
  } catch (error) {
    throw new Error(`corral: ${hostname}:${port} is in use (${(error as Error).message})`, {
      cause: error,
    });
  }
  probe.stop(true);
}
