/**
 * One piece of work at the next turn of the event loop (`setImmediate`), scheduled at most once
 * at a time: a connection or a WebSocket that stopped to let the others run goes on from here.
 * Made on first use (most never need one), so an idle slot costs nothing for it.
 */
export class NextTurn {
  #scheduled = false;
  readonly #fire: () => void;

  constructor(run: () => void) {
    this.#fire = () => {
      this.#scheduled = false;
      run();
    };
  }

  /** Runs the work at the next turn, unless that is asked for already. */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#fire);
  }
}
