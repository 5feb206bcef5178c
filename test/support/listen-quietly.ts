import type { App, AppServer } from "corral";

/** Starts `app` on a free port without printing its budget line into the test output. */
export function listenQuietly<Shared, Locals extends object>(app: App<Shared, Locals>): AppServer {
  const log = console.log;
  console.log = () => {};
  try {
    return app.listen({ port: 0 });
  } finally {
    console.log = log;
  }
}
