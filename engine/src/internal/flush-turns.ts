import { NextTurn } from "./next-turn.ts";

/**
 * Flushes of one stream that may settle in a row, each taken by the socket at once, before the
 * next one settles at the next turn of the event loop. A flush the socket takes settles within
 * the same turn, and so does the handler's next step after it: a fast reader of a long stream of
 * small writes (or of a replay of thousands of events) kept one turn going for most of a
 * second, and every other client waited that long.
 */
export const flushesPerTurn = 64;

/** When the flushes of one stream settle (see `flushesPerTurn`). Made with a stream's first flush. */
export class FlushTurns {
  /** Whether a flush is writing now: one that settles meanwhile was taken at once. */
  flushing = false;
  #inRow = 0;
  #settle: (() => void) | null = null;
  #nextTurn: NextTurn | null = null;

  /** Settles a flush (`resolve`): now, or at the next turn when it ends a run of `flushesPerTurn`. */
  settle(resolve: () => void): void {
    if (!this.flushing || ++this.#inRow < flushesPerTurn) {
      // One that waited for the socket settles in a later turn anyway: a new run starts.
      if (!this.flushing) this.#inRow = 0;
      resolve();
      return;
    }
    this.#inRow = 0;
    this.#settle = resolve;
    this.#nextTurn ??= this.#makeNextTurn();
    this.#nextTurn.schedule();
  }

  // In its own method: a closure made in `settle` would make JavaScriptCore allocate a scope on
  // every call of it.
  #makeNextTurn(): NextTurn {
    return new NextTurn(() => {
      const resolve = this.#settle;
      this.#settle = null;
      resolve?.();
    });
  }
}
