import { HttpError } from "../http-error.ts";

/**
 * A file changed (or shrank) on disk while it was being sent. Before any byte went out it is a
 * 503 with `Retry-After: 1`; after, the connection closes short of the `Content-Length`, so the
 * client sees an incomplete answer, never one that mixes old and new content.
 *
 * @example
 * if (error instanceof FileChangedError) console.warn("a file was replaced in place while sent");
 */
export class FileChangedError extends HttpError {
  constructor() {
    super(503, "the file changed while it was being sent; try again\n", {
      headers: { "Retry-After": "1" },
    });
    this.name = "FileChangedError";
  }
}
