import { App } from "corral";
import page from "./index.html" with { type: "text" };
import largeAssetPath from "./large-asset.txt" with { type: "file" };

/** The example's staging limit: far smaller than the 5 MiB asset it serves. */
export const fileServingStagingBytes = 4096;

/**
 * `GET /`: the embedded HTML page; `GET /large-asset.txt`: a 5 MiB embedded asset. Both are read
 * into memory once at startup and sent with `borrowBody`: no copy into staging, no filesystem I/O
 * at request time, and a 4 KiB staging limit is enough.
 */
export async function createFileServingApp(): Promise<App<Record<string, never>>> {
  // A text import of HTML is a string at run time; Bun's typings describe HTML bundles instead.
  const pageBytes = new TextEncoder().encode(page as unknown as string);
  // Embedded in the executable by `bun build --compile`; read once, before serving starts.
  const largeAsset = await Bun.file(largeAssetPath).bytes();
  const app = new App({ shared: {}, limits: { stagingBytes: fileServingStagingBytes } });
  app.route("GET", "/", (ctx) => {
    ctx.response.borrowBody(200, "text/html; charset=utf-8", pageBytes);
  });
  app.route("GET", "/large-asset.txt", (ctx) => {
    ctx.response.header("Cache-Control", "public, max-age=3600");
    ctx.response.borrowBody(200, "text/plain; charset=utf-8", largeAsset);
  });
  return app;
}
