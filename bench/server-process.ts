import type { Subprocess } from "bun";

const startTimeoutMs = 15_000;
const stopTimeoutMs = 5_000;
/** `sh -c` script: raises the soft open-files limit to $0 when lower, then runs the command. */
const raiseOpenFiles =
  'soft=$(ulimit -Sn); if [ "$soft" != unlimited ] && [ "$soft" -lt "$0" ]; then ' +
  'ulimit -Sn "$0" || exit 111; fi; exec "$@"';

/** Collects the lines a stream carries and lets callers wait for one with a given prefix. */
class LineCollector {
  readonly lines: string[] = [];
  #waiters: (() => void)[] = [];
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.#read(stream);
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of stream) {
      partial += decoder.decode(chunk, { stream: true });
      let newline = partial.indexOf("\n");
      while (newline >= 0) {
        this.lines.push(partial.slice(0, newline));
        partial = partial.slice(newline + 1);
        newline = partial.indexOf("\n");
      }
      this.#notify();
    }
    if (partial.length > 0) this.lines.push(partial);
    this.#ended = true;
    this.#notify();
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** The rest of the first line starting with `prefix`, or undefined if none came. */
  find(prefix: string): string | undefined {
    const line = this.lines.find((candidate) => candidate.startsWith(prefix));
    return line?.slice(prefix.length);
  }

  /** Waits (bounded) for a line starting with `prefix`; undefined on timeout or end of stream. */
  async waitFor(prefix: string, timeoutMs: number): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.find(prefix);
      if (found !== undefined || this.#ended) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits (bounded) for the stream to end. */
  async waitForEnd(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

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
