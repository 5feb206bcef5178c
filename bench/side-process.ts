import type { Subprocess } from "bun";
import { LineCollector } from "./line-collector.ts";
import type { SideResult } from "./side-client.ts";

const startTimeoutMs = 10_000;

/** A `SideClient` running in its own process (bench/side-client-main.ts), pinned to the load core. */
export class SideProcess {
  readonly #child: Subprocess<"pipe", "pipe", "inherit">;
  readonly #stdout: LineCollector;
  readonly #graceMs: number;

  private constructor(child: Subprocess<"pipe", "pipe", "inherit">, graceMs: number) {
    this.#child = child;
    this.#stdout = new LineCollector(child.stdout);
    this.#graceMs = graceMs;
  }

  /** Starts it: from its `STARTED` line on, it sends `request` every `periodMs`. */
  static async start(options: {
    readonly port: number;
    readonly request: Uint8Array;
    readonly periodMs: number;
    readonly graceMs: number;
    readonly pinPrefix: readonly string[];
  }): Promise<SideProcess> {
    const child = Bun.spawn(
      [
        ...options.pinPrefix,
        process.execPath,
        `${import.meta.dir}/side-client-main.ts`,
        String(options.port),
        String(options.periodMs),
        String(options.graceMs),
        Buffer.from(options.request).toString("base64"),
      ],
      { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    );
    const side = new SideProcess(child, options.graceMs);
    if ((await side.#stdout.waitFor("STARTED", startTimeoutMs)) === undefined) {
      side.kill();
      throw new Error(`the side client did not start within ${startTimeoutMs} ms`);
    }
    return side;
  }

  /** Tells it to stop sending and returns what it saw (bounded: it is killed if it hangs). */
  async finish(): Promise<SideResult> {
    this.#child.stdin.write("stop\n");
    await this.#child.stdin.end();
    const line = await this.#stdout.waitFor("RESULT ", this.#graceMs + startTimeoutMs);
    this.kill();
    if (line === undefined) throw new Error("the side client printed no result");
    const result = JSON.parse(line) as SideResult;
    // JSON has no NaN: a median of no latencies comes back as null.
    return { ...result, p50Ms: result.p50Ms ?? Number.NaN };
  }

  /** Kills the process if it still runs. */
  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill("SIGKILL");
  }
}
