/**
 * Holds the test fixture's `gate` jobs on their threads until `open()`: a test decides when the
 * pool's jobs finish instead of guessing how long they take. Disposing opens it, so a failing
 * test never leaves threads blocked.
 *
 * @example
 * using gate = new JobGate();
 * const pending = pool.run({ kind: "gate", gate: gate.buffer });
 * gate.open();
 */
export class JobGate implements Disposable {
  /** Shared with the threads: structured cloning shares a SharedArrayBuffer, it does not copy it. */
  readonly buffer = new SharedArrayBuffer(4);
  readonly #cell = new Int32Array(this.buffer);

  /** Lets every held job (and every later one) finish. */
  open(): void {
    Atomics.store(this.#cell, 0, 1);
    Atomics.notify(this.#cell, 0);
  }

  [Symbol.dispose](): void {
    this.open();
  }
}
