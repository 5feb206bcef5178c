import { App, serveStatic } from "corral";
import page from "./index.html" with { type: "text" };
import largeAssetPath from "./large-asset.txt" with { type: "file" };

/** The example's staging limit without `--dir`: far smaller than the 5 MiB asset it serves. */
export const fileServingStagingBytes = 4096;

/** Staging with `--dir`: files on disk are read through it, one staging-full per socket write. */
export const directoryStagingBytes = 64 * 1024;

/**
 * `GET /`: the embedded HTML page; `GET /large-asset.txt`: a 5 MiB embedded asset. Both are read
 * into memory once at startup and sent with `borrowBody`: no copy into staging, no filesystem I/O
 * at request time, and a 4 KiB staging limit is enough. With `directory`, `GET /files/<path>`
 * serves the files under it from disk with `serveStatic` (ETag, conditionals, ranges, variants,
 * and no way out of the folder).
 */
export async function createFileServingApp(
  options: { readonly directory?: string } = {},
): Promise<App<Record<string, never>>> {
  // A text import of HTML is a string at run time; Bun's typings describe HTML bundles instead.
  const pageBytes = new TextEncoder().encode(page as unknown as string);
  // Embedded in the executable by `bun build --compile`; read once, before serving starts.
  const largeAsset = await Bun.file(largeAssetPath).bytes();
  const stagingBytes =
    options.directory === undefined ? fileServingStagingBytes : directoryStagingBytes;
  const app = new App({ limits: { stagingBytes } });
  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", pageBytes);
  });
  app.route("GET", "/large-asset.txt", (ctx) => {
    ctx.response.header("Cache-Control", "public, max-age=3600");
    ctx.response.borrowBody(200, "text/plain; charset=utf-8", largeAsset);
  });
  if (options.directory !== undefined) {
    serveStatic({ root: options.directory }).mount(app, "/files");
  }
  return app;
}
