/** Collects the lines a stream carries and lets callers wait for one with a given prefix. */
export class LineCollector {
  readonly lines: string[] = [];
  #waiters: (() => void)[] = [];
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.#read(stream);
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of stream) {
      partial += decoder.decode(chunk, { stream: true });
      let newline = partial.indexOf("\n");
      while (newline >= 0) {
        this.lines.push(partial.slice(0, newline));
        partial = partial.slice(newline + 1);
        newline = partial.indexOf("\n");
      }
      this.#notify();
    }
    if (partial.length > 0) this.lines.push(partial);
    this.#ended = true;
    this.#notify();
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** The rest of the first line starting with `prefix`, or undefined if none came. */
  find(prefix: string): string | undefined {
    const line = this.lines.find((candidate) => candidate.startsWith(prefix));
    return line?.slice(prefix.length);
  }

  /** Waits (bounded) for a line starting with `prefix`; undefined on timeout or end of stream. */
  async waitFor(prefix: string, timeoutMs: number): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.find(prefix);
      if (found !== undefined || this.#ended) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits (bounded) for the stream to end. */
  async waitForEnd(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
