import { type AnyContext, App, EmbeddedAssets, HttpError, serveStatic } from "corral";
import {
  compress,
  cors,
  etag,
  type LogSink,
  logger,
  rateLimit,
  requestId,
  secureHeaders,
  skipCompression,
} from "corral/middleware";
import page from "./page.html" with { type: "text" };
import script from "./page.js" with { type: "text" };
import { parseNewTodo, parseTodoChanges } from "./todo-input.ts";
import type { TodoStore } from "./todo-store.ts";

/** What `createTodosApp` needs: the store and the command line's choices. */
export interface TodosOptions {
  readonly store: TodoStore;
  /** Answers to this origin carry CORS headers (`--cors-origin`). */
  readonly corsOrigin?: string;
  /** Requests per minute and peer (`--rate-limit`). */
  readonly rateLimit?: number;
  /** Where the request log goes; stdout by default. */
  readonly logSink?: LogSink;
  /** Makes request ids (tests use a fixed one). */
  readonly generateRequestId?: () => string;
}

// Embedded at build time (a compiled example carries them) and served by the embedded form of
// serveStatic: read once at startup, content-hash ETags and 304s, br/zstd/gzip variants made
// once, HEAD, Cache-Control. (Bun's typings call an HTML import a bundle; with type "text" it is
// the file's text.)
const pageAssets = await EmbeddedAssets.fromFiles({
  "index.html": new Blob([page as unknown as string]),
  "page.js": new Blob([script]),
});
const servePage = serveStatic({ assets: pageAssets }).handler("/");
/** The page's files carry their own variants and ETags: compress() leaves them as they are. */
function pageFile(ctx: AnyContext): void | Promise<void> {
  skipCompression(ctx);
  return servePage(ctx);
}

/**
 * The todo service a new user builds: a JSON API over SQLite with problem-details errors, the
 * first-party middleware in the documented order, and a page that uses the API.
 */
export function createTodosApp(options: TodosOptions) {
  let app = new App({ shared: { store: options.store }, errorFormat: "problem" })
    .use(requestId(options.generateRequestId ? { generate: options.generateRequestId } : {}))
    .use(logger(options.logSink ? { sink: options.logSink } : {}))
    .use(secureHeaders());
  if (options.corsOrigin !== undefined) app = app.use(cors({ origin: [options.corsOrigin] }));
  if (options.rateLimit !== undefined) app = app.use(rateLimit({ limit: options.rateLimit }));
  const service = app.use(etag()).use(compress());

  service.get("/", pageFile);
  service.get("/page.js", pageFile);

  service.get("/api/todos", (ctx) => {
    const request = ctx.request;
    const limit = integerParameter(request.queryValueRaw("limit"), "limit", 1, 100) ?? 20;
    const cursor = integerParameter(request.queryValueRaw("cursor"), "cursor", 0) ?? 0;
    ctx.response.json(200, ctx.shared.store.list(limit, cursor));
  });

  service.post("/api/todos", (ctx) => {
    const input = parseNewTodo(jsonBody(ctx));
    const todo = ctx.shared.store.create(input.title, input.done);
    if (todo === undefined) {
      // RFC 4918 §11.5: the server cannot store what it was asked to, until some is deleted.
      throw new HttpError(
        507,
        `the list is full (${ctx.shared.store.maxTodos} todos): delete one to add another`,
      );
    }
    ctx.response.header("Location", `/api/todos/${todo.id}`);
    ctx.response.json(201, todo);
  });

  service.get("/api/todos/:id", (ctx) => {
    ctx.response.json(200, found(ctx.shared.store.get(todoId(ctx.params.id))));
  });

  service.patch("/api/todos/:id", (ctx) => {
    const id = todoId(ctx.params.id);
    const changes = parseTodoChanges(jsonBody(ctx));
    ctx.response.json(200, found(ctx.shared.store.update(id, changes)));
  });

  service.delete("/api/todos/:id", (ctx) => {
    if (!ctx.shared.store.delete(todoId(ctx.params.id))) throw noSuchTodo();
    ctx.response.setStatus(204);
  });
  return service;
}

/**
 * The body as JSON, only when it says it is `application/json`. A form on any other site can
 * POST `text/plain` (or a form type) to this origin without asking first (no CORS preflight),
 * shaped like JSON; refusing every other type (415) leaves such a request nothing to create.
 * `ctx.request.json()` refuses them too (a 415 `MediaTypeError`, `…+json` types allowed); this
 * check narrows it to `application/json` and gives the example's own message and `Accept` hint.
 */
function jsonBody(ctx: AnyContext): unknown {
  const contentType = ctx.request.header("content-type") ?? "";
  const semicolon = contentType.indexOf(";");
  const mediaType = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim();
  if (mediaType.toLowerCase() !== "application/json") {
    throw new HttpError(415, "the body must be application/json", {
      headers: { Accept: "application/json" },
    });
  }
  return ctx.request.json();
}

function noSuchTodo(): HttpError {
  return new HttpError(404, "no todo has this id");
}

function found<T>(value: T | undefined): T {
  if (value === undefined) throw noSuchTodo();
  return value;
}

/** A todo id from the path: a positive integer, otherwise no todo has it (404). */
function todoId(text: string): number {
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw noSuchTodo();
  return id;
}

/** An optional whole-number query parameter within bounds, or a 400 naming it. */
function integerParameter(
  raw: string | undefined,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new HttpError(400, `${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}
