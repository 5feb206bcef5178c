import type { HandlerCompletion } from "corral/engine";

const pending = 0;
const done = 1;
const failed = 2;

/**
 * What the engine awaits for a request whose pipeline went asynchronous: the pipeline calls the
 * engine back itself when its last step ran. Handed a promise of that step instead, the engine
 * would hear of it one promise job later, through one more promise (630-990 instructions per
 * asynchronous request, counted with bench/instructions.ts on bench/servers/corral-app-await.ts).
 */
export class PipelineCompletion implements HandlerCompletion {
  #state = pending;
  #error: unknown = undefined;
  #onDone: (() => void) | undefined = undefined;
  #onFailed: ((error: unknown) => void) | undefined = undefined;

  /** Called once by the engine, right after the pipeline returned this; also works later. */
  // biome-ignore lint/suspicious/noThenProperty: the engine awaits what has a then.
  then(onDone: () => void, onFailed: (error: unknown) => void): void {
    if (this.#onDone !== undefined) {
      throw new TypeError("corral: a request's completion is awaited once");
    }
    if (this.#state === done) onDone();
    else if (this.#state === failed) onFailed(this.#error);
    else {
      this.#onDone = onDone;
      this.#onFailed = onFailed;
    }
  }

  /**
   * Ends the request with what a step of the pipeline returned: at once for a plain value, once
   * it settles for a promise (a worker taken back, an error mapped asynchronously).
   */
  follow(result: void | Promise<void>): void {
    if (result instanceof Promise) this.#follow(result);
    else this.#settle(done, undefined);
  }

  /** Ends the request as failed (what the pipeline threw goes to the engine). */
  fail(error: unknown): void {
    this.#settle(failed, error);
  }

  // Its closures kept out of follow, which runs on every asynchronous request.
  #follow(result: Promise<void>): void {
    result.then(
      () => this.#settle(done, undefined),
      (error: unknown) => this.#settle(failed, error),
    );
  }

  #settle(state: typeof done | typeof failed, error: unknown): void {
    if (this.#state !== pending) throw new TypeError("corral: a request completed twice");
    this.#state = state;
    this.#error = error;
    if (this.#onDone === undefined) return;
    if (state === done) this.#onDone();
    else this.#onFailed!(error);
  }
}
