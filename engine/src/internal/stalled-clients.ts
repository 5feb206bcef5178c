import { SlotQueue } from "./slot-queue.ts";

/**
 * Connections whose handler holds a worker while it waits on its client (see blocked-output.ts
 * and slow-uploads.ts), the one stalled longest first, and the share of the workers they may hold
 * while other requests wait for one.
 */
export class StalledClients {
  protected readonly holders: SlotQueue;
  readonly #share: number;
  readonly #counted: (holders: number) => void;

  /** `percent` of `workers`; `counted` is told how many hold a worker now. */
  constructor(
    maxConnections: number,
    workers: number,
    percent: number,
    counted: (holders: number) => void,
  ) {
    this.holders = new SlotQueue(maxConnections);
    this.#share = Math.floor((workers * percent) / 100);
    this.#counted = counted;
  }

  /** The connection in `slot` holds a worker while it waits on its client, or no longer does. */
  setHolding(slot: number, holding: boolean): void {
    if (holding) this.holders.push(slot);
    else this.holders.remove(slot);
    this.#counted(this.holders.length);
  }

  /** A holder made progress: it is no longer the one stalled longest. */
  progressed(slot: number): void {
    if (!this.holders.has(slot)) return;
    this.holders.remove(slot);
    this.holders.push(slot);
  }

  /**
   * The connection to close because the holders have more than their share of the workers while
   * `waiting` requests wait for one, or -1 when none must go.
   */
  connectionToClose(waiting: number): number {
    return this.overShare(waiting) ? this.holders.first : -1;
  }

  /** Whether the holders have more than their share of the workers while `waiting` wait. */
  protected overShare(waiting: number): boolean {
    return waiting > 0 && this.holders.length > this.#share;
  }
}
