import { open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { App } from "corral";
import { isValidFileName, maxFileNameCharacters } from "./file-name.ts";
import { FolderQuota, type UploadReservation } from "./folder-quota.ts";
import page from "./page.html" with { type: "text" };

/**
 * The upload page, encoded once at startup and sent with `borrowBody` (no copy per request). A
 * text import is a string at run time (Bun's typings describe HTML bundles instead).
 */
const pageBytes = new TextEncoder().encode(page as unknown as string);

/**
 * Options of `createUploadsApp`.
 *
 * @example
 * createUploadsApp({ directory: "/srv/uploads" });
 */
export interface UploadsAppOptions {
  /** The folder uploaded files are written to (it must exist). */
  readonly directory: string;
  /** The largest upload in bytes; `maxStreamedBodyBytes` (1 GiB by default) otherwise. */
  readonly maxUploadBytes?: number;
  /** Bytes the folder may hold (4 GiB by default); an upload past it is a 507. */
  readonly maxFolderBytes?: number;
  /** Files the folder may hold (1000 by default); one more is a 507. */
  readonly maxFiles?: number;
}

/** What a stored upload is answered with. */
interface StoredFile {
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * `GET /` is a page with a file input and a progress bar that uploads with `PUT`.
 * `PUT /files/:name` streams the request body to `<directory>/<name>`, hashing it on the way,
 * and answers 201 with `{ name, size, sha256 }`; `POST /files` does the same for each file part
 * of a `multipart/form-data` body (`{ files: [...] }`). The body is never held whole: each borrowed
 * piece is written before the next is read, so memory stays at one socket chunk whatever the
 * size. The file is written under a temporary name and renamed when complete; a client that
 * leaves mid-upload leaves nothing behind. A `PUT` to a name that exists replaces the file (HTTP
 * PUT); the folder holds at most `maxFolderBytes` and `maxFiles` (see `FolderQuota`), 507 past
 * either.
 *
 * @example
 * const app = createUploadsApp({ directory: "/tmp/uploads" });
 * app.listen({ port: 3000 });
 */
export function createUploadsApp(options: UploadsAppOptions): App<object> {
  const app = new App({
    shared: {},
    limits:
      options.maxUploadBytes === undefined ? {} : { maxStreamedBodyBytes: options.maxUploadBytes },
  });
  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", pageBytes);
  });
  const quota = new FolderQuota(options.directory, options.maxFolderBytes, options.maxFiles);
  let uploadCount = 0;
  const partPathFor = (name: string) =>
    join(options.directory, `.${name}.${process.pid}-${++uploadCount}.part`);
  app.route(
    "PUT",
    "/files/:name",
    async (ctx) => {
      const name = ctx.params.name;
      if (!isValidFileName(name)) {
        ctx.response.json(400, {
          error: `a file name is 1 to ${maxFileNameCharacters} letters, digits, ".", "_" or "-", not starting with "."`,
        });
        return;
      }
      // Refused before a byte is read when the declared length does not fit.
      const length = ctx.request.header("content-length");
      const reservation = quota.begin(name, length === undefined ? undefined : Number(length));
      const partPath = partPathFor(name);
      const stored = await storeAndRename(ctx.request.bodyStream(), partPath, reservation, name);
      ctx.response.json(201, stored);
    },
    { body: "stream" },
  );
  app.route(
    "POST",
    "/files",
    async (ctx) => {
      // Every part is kept as its part file until the whole body has come: only then do they
      // replace files of the same names, so a request that fails leaves the folder as it was
      // (renamed at once, a rejected later part deleted a file that existed before).
      const written: { partPath: string; file: StoredFile; reservation: UploadReservation }[] = [];
      const stored: StoredFile[] = [];
      const discard = () =>
        Promise.all(
          written.splice(0).map(({ partPath, reservation }) => {
            reservation.end(undefined);
            return unlink(partPath).catch(() => {});
          }),
        );
      try {
        for await (const part of ctx.request.multipartStream()) {
          if (part.filename === undefined) continue;
          if (!isValidFileName(part.filename)) {
            await discard();
            ctx.response.json(400, { error: `invalid file name in part ${part.name}` });
            return;
          }
          const reservation = quota.begin(part.filename, undefined);
          const partPath = partPathFor(part.filename);
          try {
            const file = await storeBody(part.content(), partPath, part.filename, reservation);
            written.push({ partPath, file, reservation });
          } catch (error) {
            reservation.end(undefined);
            throw error;
          }
        }
        while (written.length > 0) {
          const { partPath, file, reservation } = written[0]!;
          await rename(partPath, join(options.directory, file.name));
          written.shift();
          reservation.end(file.size);
          stored.push(file);
        }
      } catch (error) {
        await discard();
        throw error;
      }
      ctx.response.json(201, { files: stored });
    },
    { body: "stream" },
  );
  /** Stores `body` as `name` through a part file, within its share of the folder. */
  async function storeAndRename(
    body: AsyncIterable<Uint8Array>,
    partPath: string,
    reservation: UploadReservation,
    name: string,
  ): Promise<StoredFile> {
    let storedBytes: number | undefined;
    try {
      const stored = await storeBody(body, partPath, name, reservation);
      await rename(partPath, join(options.directory, name));
      storedBytes = stored.size;
      return stored;
    } finally {
      reservation.end(storedBytes);
    }
  }
  return app;
}

/**
 * Writes every piece to `partPath` as it comes, each counted in `reservation` first (a 507 once
 * the folder is full); removes the file if the upload fails.
 */
async function storeBody(
  body: AsyncIterable<Uint8Array>,
  partPath: string,
  name: string,
  reservation: UploadReservation,
): Promise<StoredFile> {
  const file = await open(partPath, "wx");
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  try {
    for await (const piece of body) {
      reservation.grow(piece.length);
      hasher.update(piece);
      // Written before the next piece is asked for: the piece is only borrowed until then.
      let written = 0;
      while (written < piece.length) {
        const result = await file.write(piece, written, piece.length - written);
        written += result.bytesWritten;
      }
      size += piece.length;
    }
    await file.close();
  } catch (error) {
    await file.close();
    await unlink(partPath);
    throw error;
  }
  return { name, size, sha256: hasher.digest("hex") };
}
