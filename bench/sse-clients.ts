import type { Socket, SocketHandler } from "bun";

/** Epoch milliseconds with sub-millisecond resolution, comparable with the server's clock. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

const request = new TextEncoder().encode(
  "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
);
const headEnd = "\r\n\r\n";
/** A response head longer than this is not the SSE head the bench expects. */
const maxHeadChars = 4096;

enum Phase {
  Connecting = 0,
  Sent = 1,
  Subscribed = 2,
  Received = 3,
}

/**
 * Many raw `GET /events` clients on one event loop, kept small: per client only a socket, a phase
 * byte and an arrival time (plus the head text while it is incomplete). A client counts as
 * subscribed once it has the `200` head (the server's first step also sends a comment), and as
 * having received the broadcast when a chunk holding `data:` arrives; it records the arrival
 * time then, before anything else. `resetArrivals()` readies them for the next broadcast.
 */
export class SseClients {
  readonly count: number;
  readonly #sockets: (Socket<number> | undefined)[];
  readonly #phase: Uint8Array;
  readonly #arrivals: Float64Array;
  readonly #heads = new Map<number, string>();
  #subscribed = 0;
  #received = 0;
  #closedEarly = 0;
  #closing = false;
  readonly #problems: string[] = [];

  constructor(count: number) {
    this.count = count;
    this.#sockets = new Array(count).fill(undefined);
    this.#phase = new Uint8Array(count);
    this.#arrivals = new Float64Array(count).fill(Number.NaN);
  }

  /** Clients that have the 200 head. */
  get subscribed(): number {
    return this.#subscribed;
  }

  /** Clients that have the broadcast event. */
  get received(): number {
    return this.#received;
  }

  /** Clients whose connection closed before the bench closed it. */
  get closedEarly(): number {
    return this.#closedEarly;
  }

  /** The first few problems seen (bad heads, socket errors, early closes). */
  get problems(): readonly string[] {
    return this.#problems;
  }

  /** Arrival times (epoch ms) of the clients that received the event, unsorted. */
  arrivals(): number[] {
    const times: number[] = [];
    for (const time of this.#arrivals) if (!Number.isNaN(time)) times.push(time);
    return times;
  }

  /**
   * Opens every client against 127.0.0.1:`port`, at most `inFlight` connects at a time, each
   * sending its request as soon as it is open. Throws when one cannot connect or time runs out.
   */
  async connect(port: number, inFlight: number, deadline: number): Promise<void> {
    let next = 0;
    const handlers = this.#handlers();
    const opener = async () => {
      while (next < this.count) {
        if (Date.now() > deadline) throw new Error(`only ${next} of ${this.count} connected`);
        const index = next++;
        this.#sockets[index] = await Bun.connect({
          hostname: "127.0.0.1",
          port,
          data: index,
          socket: handlers,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, this.count) }, opener));
  }

  /** Forgets the arrivals, so that every subscribed client waits for the next event. */
  resetArrivals(): void {
    for (let index = 0; index < this.count; index++) {
      if (this.#phase[index] === Phase.Received) this.#phase[index] = Phase.Subscribed;
    }
    this.#arrivals.fill(Number.NaN);
    this.#received = 0;
  }

  /** Closes every client (no more early-close accounting from here on). */
  closeAll(): void {
    this.#closing = true;
    for (let index = 0; index < this.count; index++) {
      this.#sockets[index]?.terminate();
      this.#sockets[index] = undefined;
    }
    this.#heads.clear();
  }

  #problem(text: string): void {
    if (this.#problems.length < 5) this.#problems.push(text);
  }

  #handlers(): SocketHandler<number> {
    return {
      open: (socket) => {
        this.#phase[socket.data] = Phase.Sent;
        socket.write(request);
      },
      data: (socket, chunk) => {
        const index = socket.data;
        const phase = this.#phase[index];
        if (phase === Phase.Subscribed) {
          if (chunk.indexOf("data:") >= 0) {
            this.#arrivals[index] = epochNow();
            this.#phase[index] = Phase.Received;
            this.#received++;
          }
          return;
        }
        if (phase === Phase.Sent) this.#readHead(socket, index, chunk);
      },
      close: (socket) => {
        if (this.#closing) return;
        this.#closedEarly++;
        this.#problem(
          `client ${socket.data} closed by the server in phase ${this.#phase[socket.data]}`,
        );
      },
      error: (socket, error) => {
        this.#problem(`client ${socket.data}: ${error.message}`);
      },
    };
  }

  #readHead(socket: Socket<number>, index: number, chunk: Buffer): void {
    const text = (this.#heads.get(index) ?? "") + chunk.toString("latin1");
    const end = text.indexOf(headEnd);
    if (end < 0) {
      if (text.length > maxHeadChars) {
        this.#problem(`client ${index}: no end of head in ${text.length} characters`);
        socket.terminate();
      } else {
        this.#heads.set(index, text);
      }
      return;
    }
    this.#heads.delete(index);
    if (!text.startsWith("HTTP/1.1 200 ") || !/content-type: text\/event-stream/i.test(text)) {
      this.#problem(`client ${index}: unexpected head ${JSON.stringify(text.slice(0, end))}`);
      socket.terminate();
      return;
    }
    this.#phase[index] = Phase.Subscribed;
    this.#subscribed++;
    if (text.includes("data:", end)) {
      this.#arrivals[index] = epochNow();
      this.#phase[index] = Phase.Received;
      this.#received++;
    }
  }
}
