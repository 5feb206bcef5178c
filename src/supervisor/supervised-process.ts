import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import type { EngineStats } from "corral/engine";
import { type ChildMessage, childEnvironment, type SupervisorMessage } from "./messages.ts";

// From source this file is src/supervisor/; built, it is bundled into dist/src/index.js and into
// dist/src/supervisor/corral-command.js, beside the built child-main.js.
const childMain = fileURLToPath(new URL(childMainFrom(import.meta.url), import.meta.url));
// A child that outlives its grace period by this much is killed: its stop() is stuck.
const stopMarginMs = 2000;

/** Where a child runs and what the supervisor hears from it. */
export interface ProcessSpec {
  readonly entryPath: string;
  readonly hostname: string;
  readonly port: number;
  onListening(child: SupervisedProcess, message: ChildMessage & { type: "listening" }): void;
  onExit(child: SupervisedProcess, exitCode: number | null): void;
}

/** One Bun process of the group, as the supervisor sees it: IPC in both directions. */
export class SupervisedProcess {
  readonly #subprocess: Subprocess;
  readonly #statsWaiters = new Map<number, (stats: EngineStats | undefined) => void>();
  #listeningSince = -1;
  #exited = false;
  /** Resolves with the exit code once the process is gone. */
  readonly exited: Promise<number | null>;

  constructor(spec: ProcessSpec) {
    this.#subprocess = Bun.spawn([process.execPath, childMain], {
      env: {
        ...process.env,
        [childEnvironment.entry]: spec.entryPath,
        [childEnvironment.hostname]: spec.hostname,
        [childEnvironment.port]: String(spec.port),
      },
      stdio: ["ignore", "inherit", "inherit"],
      ipc: (message: ChildMessage) => {
        if (message.type === "listening") {
          this.#listeningSince = performance.now();
          spec.onListening(this, message);
        } else {
          this.#statsWaiters.get(message.id)?.(message.stats);
          this.#statsWaiters.delete(message.id);
        }
      },
    });
    this.exited = this.#subprocess.exited.then((exitCode) => {
      this.#exited = true;
      for (const waiter of this.#statsWaiters.values()) waiter(undefined);
      this.#statsWaiters.clear();
      spec.onExit(this, exitCode);
      return exitCode;
    });
  }

  get pid(): number {
    return this.#subprocess.pid;
  }

  /** Milliseconds since the process said it listens; -1 before. */
  get listeningForMs(): number {
    return this.#listeningSince < 0 ? -1 : performance.now() - this.#listeningSince;
  }

  /** The process's counters, or undefined when it exits first. */
  stats(id: number): Promise<EngineStats | undefined> {
    if (this.#exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#statsWaiters.set(id, resolve);
      this.#send({ type: "stats", id });
    });
  }

  /** Asks for a graceful stop; kills the process if it is still there well after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (this.#exited) return;
    this.#send({ type: "stop", graceMs });
    const killer = setTimeout(() => this.#subprocess.kill("SIGKILL"), graceMs + stopMarginMs);
    await this.exited;
    clearTimeout(killer);
  }

  #send(message: SupervisorMessage): void {
    try {
      this.#subprocess.send(message);
    } catch {
      // The channel closed: the process is exiting, and `exited` settles the waiters.
    }
  }
}

function childMainFrom(moduleUrl: string): string {
  if (moduleUrl.endsWith(".ts")) return "./child-main.ts";
  return moduleUrl.endsWith("/index.js") ? "./supervisor/child-main.js" : "./child-main.js";
}
