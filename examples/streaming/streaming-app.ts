import { App, Duration, type Io, middleware } from "corral";

/** What the streaming example exposes for tests: how many requests finished their cleanup. */
export interface StreamingShared {
  cleanups: number;
}

/**
 * `GET /`: a stream in three parts (start, progress, done) with 500 ms between them. A client that
 * leaves early ends the handler at its next sleep or flush, and cleanup still runs.
 */
export function createStreamingApp(io?: Io): App<StreamingShared> {
  const app = new App<StreamingShared>({ shared: { cleanups: 0 }, ...(io ? { io } : {}) });
  const counted = app.use(
    middleware<object, object, StreamingShared>({
      cleanup(ctx) {
        ctx.shared.cleanups++;
      },
    }),
  );
  counted.route("GET", "/", async (ctx) => {
    ctx.response.header("Cache-Control", "no-cache");
    const stream = ctx.response.stream(200, "text/plain; charset=utf-8");
    const writer = stream.writer();
    await writer.writeAll("started\n");
    await writer.flush();
    await ctx.sleep(Duration.fromMilliseconds(500));
    await writer.print("progress {} of {}\n", 1, 2);
    await writer.flush();
    await ctx.sleep(Duration.fromMilliseconds(500));
    await writer.writeAll("done\n");
    await stream.finish();
  });
  return app;
}
