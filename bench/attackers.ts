// What the abuse scenario's attackers are made of: raw requests, clients that never read, and
// tallies of what came back.
import { openMany, RawConnection } from "./raw-connection.ts";

/** A running attack. */
export interface RunningAttack {
  /** What the attackers saw so far, in a few words. */
  outcome(): string;
  /** Closes every attacking connection. */
  stop(): void;
}

export const encoder = new TextEncoder();

/** A GET request with `headers` (each line ending in CRLF). */
export function get(target: string, headers = ""): string {
  return `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`;
}

/** `request` `count` times, as one write. */
export function pipelined(request: string, count: number): Uint8Array {
  return encoder.encode(request.repeat(count));
}

/** `request` repeated until the bytes reach `minimumBytes`. */
export function pipelinedBytes(request: string, minimumBytes: number): Uint8Array {
  return pipelined(request, Math.ceil(minimumBytes / request.length));
}

const mebibyte = 1024 * 1024;

export function closedCount(connections: readonly RawConnection[]): number {
  return connections.filter((connection) => connection.closed).length;
}

function bytesSent(connections: readonly RawConnection[]): string {
  const bytes = connections.reduce((sum, connection) => sum + connection.bytesSent, 0);
  if (bytes < mebibyte) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / mebibyte).toFixed(1)} MiB`;
}

export function stopAll(connections: readonly RawConnection[]): void {
  for (const connection of connections) connection.destroy();
}

/** `count` clients that never read, each sending `bytes` once, or over and over. */
export async function nonReaders(
  port: number,
  count: number,
  bytes: Uint8Array,
  repeat: boolean,
): Promise<RunningAttack> {
  const connections = await openMany(count, async () => {
    const connection = await RawConnection.open(port);
    connection.pause();
    return connection;
  });
  for (const connection of connections) {
    if (repeat) connection.sendRepeatedly(bytes);
    else connection.send(bytes);
  }
  return {
    outcome: () =>
      `${bytesSent(connections)} of requests sent, ${closedCount(connections)}/${count} closed by the server`,
    stop: () => stopAll(connections),
  };
}

/** Counts statuses (and connections closed without an answer), shown as "200 x 3, 503 x 2". */
export class StatusTally {
  readonly #counts = new Map<string, number>();

  add(outcome: number | string): void {
    const key = String(outcome);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  get total(): number {
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    return total;
  }

  toString(): string {
    if (this.#counts.size === 0) return "no answer";
    return [...this.#counts].map(([key, count]) => `${key} x ${count}`).join(", ");
  }
}
