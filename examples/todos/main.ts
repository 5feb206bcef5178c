// `bun run example todos --port P [--db FILE] [--cors-origin ORIGIN] [--rate-limit N]`: a todo
// service (JSON API on bun:sqlite, a page, CORS, request ids, logs, compression, ETags, limits).
import { serveExample } from "../shared/serve-example.ts";
import { TodoStore } from "./todo-store.ts";
import { createTodosApp } from "./todos-app.ts";
import { type TodosArguments, takeTodosArguments } from "./todos-arguments.ts";

/** Where the main process leaves its options for the processes of `--processes N` (inherited). */
const optionsVariable = "CORRAL_TODOS_EXAMPLE_OPTIONS";

/** Makes the App; each process of `--processes N` makes its own (share state with `--db`). */
async function createApp() {
  const options = JSON.parse(process.env[optionsVariable] ?? "{}") as TodosArguments;
  return createTodosApp({
    store: new TodoStore(options.db),
    ...(options.corsOrigin === undefined ? {} : { corsOrigin: options.corsOrigin }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
  });
}
export default createApp;

/** Takes this example's options out of the command line; a bad one is one line and status 2. */
export function prepare(args: readonly string[]): readonly string[] {
  const taken = takeTodosArguments(args);
  if (typeof taken === "string") {
    console.error(taken);
    process.exit(2);
  }
  process.env[optionsVariable] = JSON.stringify(taken.options);
  return taken.rest;
}

if (import.meta.main) {
  await serveExample("todos", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
