import { RawConnection } from "./raw-connection.ts";

/** What the side client saw over one attack. Times in ms, from the connect to the last byte. */
export interface SideResult {
  /** Requests started (one every period). */
  readonly sent: number;
  /** Requests answered 200. */
  readonly ok: number;
  /** Every other outcome: a status, "closed" (no answer) or "refused", with its count. */
  readonly failures: Readonly<Record<string, number>>;
  /** Requests with no answer when the side client stopped waiting. */
  readonly unanswered: number;
  /** Median latency of the answered requests. */
  readonly p50Ms: number;
  /**
   * The worst latency: of the answered requests, or, when some went unanswered, the longest
   * one of those waited (a lower bound; see `unanswered`).
   */
  readonly worstMs: number;
}

interface Probe {
  readonly started: number;
  connection: RawConnection | null;
  done: boolean;
}

/**
 * A well-behaved client beside an attack: every `periodMs` it opens a new connection and sends
 * one request (with `Connection: close`), and records how long the whole answer took and its
 * status. Requests are not serialised: a stalled server faces every request of the period.
 */
export class SideClient {
  readonly #port: number;
  readonly #request: Uint8Array;
  readonly #periodMs: number;
  readonly #probes: Probe[] = [];
  readonly #latencies: number[] = [];
  readonly #failures: Record<string, number> = {};
  #ok = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(port: number, request: Uint8Array, periodMs = 50) {
    this.#port = port;
    this.#request = request;
    this.#periodMs = periodMs;
  }

  /** Sends the first request now and one every period until `finish`. */
  start(): void {
    this.#probe();
    this.#timer = setInterval(() => this.#probe(), this.#periodMs);
  }

  /** Stops sending, waits up to `graceMs` for the answers still due, then closes everything. */
  async finish(graceMs: number): Promise<SideResult> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const deadline = performance.now() + graceMs;
    while (this.#probes.some((probe) => !probe.done) && performance.now() < deadline) {
      await Bun.sleep(10);
    }
    const now = performance.now();
    let unanswered = 0;
    let longestWait = 0;
    for (const probe of this.#probes) {
      if (!probe.done) {
        unanswered++;
        longestWait = Math.max(longestWait, now - probe.started);
      }
      probe.done = true;
      probe.connection?.destroy();
    }
    const latencies = [...this.#latencies].sort((a, b) => a - b);
    const p50Ms = latencies.length === 0 ? Number.NaN : latencies[(latencies.length - 1) >> 1]!;
    return {
      sent: this.#probes.length,
      ok: this.#ok,
      failures: { ...this.#failures },
      unanswered,
      p50Ms,
      worstMs: Math.max(latencies[latencies.length - 1] ?? 0, longestWait),
    };
  }

  #probe(): void {
    const probe: Probe = { started: performance.now(), connection: null, done: false };
    this.#probes.push(probe);
    const settle = (outcome: number | string) => {
      if (probe.done) return;
      probe.done = true;
      probe.connection?.destroy();
      this.#latencies.push(performance.now() - probe.started);
      if (outcome === 200) this.#ok++;
      else this.#failures[outcome] = (this.#failures[outcome] ?? 0) + 1;
    };
    RawConnection.open(this.#port, {
      onResponse: (status) => settle(status),
      onClose: () => settle("closed"),
    }).then(
      (connection) => {
        probe.connection = connection;
        if (probe.done) connection.destroy();
        else connection.send(this.#request);
      },
      () => settle("refused"),
    );
  }
}

/** One request on a new connection: its status, or "closed"/"refused"/"timeout". */
export async function requestOnce(
  port: number,
  request: Uint8Array,
  timeoutMs: number,
): Promise<number | string> {
  const { promise, resolve } = Promise.withResolvers<number | string>();
  const timer = setTimeout(() => resolve("timeout"), timeoutMs);
  let connection: RawConnection | null = null;
  try {
    connection = await RawConnection.open(port, {
      onResponse: resolve,
      onClose: () => resolve("closed"),
    });
    connection.send(request);
  } catch {
    resolve("refused");
  }
  const outcome = await promise;
  clearTimeout(timer);
  connection?.destroy();
  return outcome;
}
