import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import type { EngineStats } from "corral/engine";
import { type LivenessSettings, missedPingsWhenHung } from "./liveness.ts";
import { type ChildMessage, childEnvironment, type SupervisorMessage } from "./messages.ts";

// From source this file is src/supervisor/; built, it is bundled into dist/src/index.js and into
// dist/src/supervisor/corral-command.js, beside the built child-main.js.
const childMain = fileURLToPath(new URL(childMainFrom(import.meta.url), import.meta.url));
// A child that outlives its grace period by this much is killed: its stop() is stuck.
const stopMarginMs = 2000;

/** What `stats()` gives when there are no counters: the process exited, or did not answer. */
export type MissingStats = "exited" | "no answer";

/** Where a child runs and what the supervisor hears from it. */
export interface ProcessSpec {
  readonly entryPath: string;
  readonly hostname: string;
  readonly port: number;
  readonly liveness: LivenessSettings;
  onListening(child: SupervisedProcess, message: ChildMessage & { type: "listening" }): void;
  /** The process left pings unanswered for the deadline; it is killed with SIGKILL right after. */
  onHung(child: SupervisedProcess): void;
  /** The process did not listen within the start deadline; it is killed with SIGKILL right after. */
  onStartTimeout(child: SupervisedProcess): void;
  onExit(child: SupervisedProcess, exitCode: number | null): void;
}

/** One Bun process of the group, as the supervisor sees it: IPC in both directions. */
export class SupervisedProcess {
  readonly #subprocess: Subprocess;
  readonly #statsWaiters = new Map<number, (stats: EngineStats | MissingStats) => void>();
  #listeningSince = -1;
  #exited = false;
  #hung = false;
  #startTimedOut = false;
  #stopRequested = false;
  readonly #startTimer: ReturnType<typeof setTimeout>;
  #livenessTimer: ReturnType<typeof setInterval> | undefined;
  #pingsSent = 0;
  #pingsAnswered = 0;
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
        if (message.type === "pong") {
          this.#pingsAnswered = Math.max(this.#pingsAnswered, message.id);
        } else if (message.type === "listening") {
          clearTimeout(this.#startTimer);
          this.#listeningSince = performance.now();
          this.#watchLiveness(spec);
          spec.onListening(this, message);
        } else {
          this.#statsWaiters.get(message.id)?.(message.stats);
        }
      },
    });
    // Pings start once the process listens (its IPC answers only then); before, a deadline.
    this.#startTimer = setTimeout(() => {
      if (this.#exited || this.#stopRequested) return;
      this.#startTimedOut = true;
      spec.onStartTimeout(this);
      this.#subprocess.kill("SIGKILL");
    }, spec.liveness.startDeadlineMs);
    this.#startTimer.unref();
    this.exited = this.#subprocess.exited.then((exitCode) => {
      this.#exited = true;
      clearTimeout(this.#startTimer);
      clearInterval(this.#livenessTimer);
      for (const waiter of [...this.#statsWaiters.values()]) waiter("exited");
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

  /** True once the supervisor killed the process for not listening within the start deadline. */
  get startTimedOut(): boolean {
    return this.#startTimedOut;
  }

  /** True once the supervisor killed the process for leaving its pings unanswered. */
  get hung(): boolean {
    return this.#hung;
  }

  /**
   * The process's counters; "exited" when it exits first, "no answer" when it has not answered
   * within `timeoutMs` (a late answer is dropped: nothing waits for it any more).
   */
  stats(id: number, timeoutMs: number): Promise<EngineStats | MissingStats> {
    if (this.#exited) return Promise.resolve("exited");
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle("no answer"), timeoutMs);
      const settle = (stats: EngineStats | MissingStats) => {
        clearTimeout(timer);
        this.#statsWaiters.delete(id);
        resolve(stats);
      };
      this.#statsWaiters.set(id, settle);
      this.#send({ type: "stats", id });
    });
  }

  /** Asks for a graceful stop; kills the process if it is still there well after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    // A process draining its connections answers to its own deadline now, not to the pings.
    this.#stopRequested = true;
    clearTimeout(this.#startTimer);
    clearInterval(this.#livenessTimer);
    if (this.#exited) return;
    this.#send({ type: "stop", graceMs });
    const killer = setTimeout(() => this.#subprocess.kill("SIGKILL"), graceMs + stopMarginMs);
    await this.exited;
    clearTimeout(killer);
  }

  /**
   * Pings the process every interval; one that has left the pings of the whole deadline
   * unanswered (its event loop is stuck: an endless loop, a deadlock in native code) is killed
   * with SIGKILL, since a stuck loop cannot run a graceful stop, and its exit restarts it.
   */
  #watchLiveness(spec: ProcessSpec): void {
    if (this.#stopRequested) return;
    const missedWhenHung = missedPingsWhenHung(spec.liveness);
    this.#livenessTimer = setInterval(() => {
      if (this.#exited) return;
      if (this.#pingsSent - this.#pingsAnswered >= missedWhenHung) {
        clearInterval(this.#livenessTimer);
        this.#hung = true;
        spec.onHung(this);
        this.#subprocess.kill("SIGKILL");
        return;
      }
      this.#send({ type: "ping", id: ++this.#pingsSent });
    }, spec.liveness.intervalMs);
    // The pings keep no process alive: the children themselves do, while they run.
    this.#livenessTimer.unref();
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
