// `bun run example continuations --port <port>`: a chat room streamed to many clients on 4 workers.
import { serveExample } from "../shared/serve-example.ts";
import { createContinuationsApp } from "./continuations-app.ts";

/** Makes the App; each process of `--processes N` makes its own. */
const createApp = createContinuationsApp;
export default createApp;

/** Where the printed URL opens: the example has no page at `/`. */
export const startPath = "/stats";

if (import.meta.main)
  await serveExample(
    "continuations",
    import.meta.path,
    createApp,
    process.argv.slice(2),
    startPath,
  );
