import type { FileSink } from "bun";

/**
 * A log sink writing to `writer` (`Bun.stdout.writer()`, `Bun.stderr.writer()`) without ever
 * blocking the event loop: when the reader of a pipe falls behind, or never reads, the returned
 * promise waits, not the process. `Bun.write(Bun.stdout, text)` and `console.error` are blocking
 * `write()`s on a pipe: once the reader was 64 KiB behind, the whole server slept in the kernel.
 * The promise (returned only when the text could not all go at once) rejects when the reader is
 * gone (EPIPE). Bun makes the file descriptor non-blocking for the whole process, so other
 * `Bun.write`s to it spin on a full pipe instead of sleeping (`console.log` still works).
 *
 * @example
 * const log = logger({ sink: writerSink(Bun.stderr.writer()) });
 */
export function writerSink(writer: FileSink): (text: string) => void | Promise<void> {
  return (text) => {
    const written = writer.write(text);
    const flushed = writer.flush();
    // Either may be a promise, which rejects when the reader is gone: both are handled.
    if (written instanceof Promise || flushed instanceof Promise) {
      return Promise.all([written, flushed]).then(() => {});
    }
  };
}
