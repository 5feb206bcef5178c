import type { Subprocess } from "bun";
import { LineCollector } from "./line-collector.ts";

const startTimeoutMs = 15_000;
const stopTimeoutMs = 5_000;
/** `sh -c` script: raises the soft open-files limit to $0 when lower, then runs the command. */
const raiseOpenFiles =
  'soft=$(ulimit -Sn); if [ "$soft" != unlimited ] && [ "$soft" -lt "$0" ]; then ' +
  'ulimit -Sn "$0" || exit 111; fi; exec "$@"';

/** How a bench server is started: its script, and the CPU pinning prefix (e.g. taskset). */
export interface ServerLaunch {
  readonly script: string;
  readonly pinPrefix: readonly string[];
  readonly cwd: string;
  /** More arguments after `--port 0`. */
  readonly args?: readonly string[];
  /**
   * Open files the server needs: it is started through `sh -c` raising the soft `ulimit -n` to
   * this if it is lower (up to the inherited hard limit, which the caller checks).
   */
  readonly openFiles?: number;
  /** Environment variables set for the server, beside this process's own. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A bench server running in its own process, listening on 127.0.0.1. */
export class ServerProcess {
  readonly #child: Subprocess<"ignore", "pipe", "pipe">;
  readonly #stdout: LineCollector;
  readonly #stderr: LineCollector;
  readonly port: number;

  private constructor(
    child: Subprocess<"ignore", "pipe", "pipe">,
    stdout: LineCollector,
    stderr: LineCollector,
    port: number,
  ) {
    this.#child = child;
    this.#stdout = stdout;
    this.#stderr = stderr;
    this.port = port;
  }

  /** Spawns the server with `--port 0` and waits for its `READY <port>` line. */
  static async start(launch: ServerLaunch): Promise<ServerProcess> {
    const command = [process.execPath, launch.script, "--port", "0", ...(launch.args ?? [])];
    const raise =
      launch.openFiles === undefined ? [] : ["sh", "-c", raiseOpenFiles, String(launch.openFiles)];
    const child = Bun.spawn([...launch.pinPrefix, ...raise, ...command], {
      cwd: launch.cwd,
      ...(launch.env === undefined ? {} : { env: { ...process.env, ...launch.env } }),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = new LineCollector(child.stdout);
    const stderr = new LineCollector(child.stderr);
    const ready = await stdout.waitFor("READY ", startTimeoutMs);
    const port = Number(ready);
    if (ready === undefined || !Number.isInteger(port) || port <= 0) {
      child.kill("SIGKILL");
      await child.exited;
      throw new Error(
        `${launch.script} did not print READY <port> within ${startTimeoutMs} ms\n` +
          [...stdout.lines, ...stderr.lines].join("\n"),
      );
    }
    return new ServerProcess(child, stdout, stderr, port);
  }

  get pid(): number {
    return this.#child.pid;
  }

  /** The JSON after the first stdout line starting with `prefix` (e.g. "INFO "), if any. */
  jsonLine<T>(prefix: string): T | undefined {
    const text = this.#stdout.find(prefix);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /** What the server wrote to stderr. */
  get stderrText(): string {
    return this.#stderr.lines.join("\n");
  }

  /**
   * Sends SIGTERM, waits (bounded) for the process to exit and its output to end, and kills it
   * if it does not. Corral servers print their `STATS` line on SIGTERM.
   */
  async stop(): Promise<void> {
    this.#child.kill("SIGTERM");
    const exited = await Promise.race([
      this.#child.exited.then(() => true),
      Bun.sleep(stopTimeoutMs).then(() => false),
    ]);
    if (!exited) {
      this.#child.kill("SIGKILL");
      await this.#child.exited;
    }
    await this.#stdout.waitForEnd(stopTimeoutMs);
  }
}
