import {
  App,
  type Io,
  middleware,
  type ResponseDraft,
  ResponseLimitError,
  stopChain,
} from "corral";
import { createCatalogue, type Item } from "./catalogue.ts";
import { itemErrors, longestErrorBytes, maxIdBytes } from "./item-errors.ts";

/** The example's staging: no response body it sends is longer than this many bytes. */
export const defaultStagingBytes = 1024;

/** Options of `createJsonLookupApp`; tests pass their own items and limit. */
export interface JsonLookupOptions {
  readonly io?: Io;
  /** The engine's `stagingBytes`; at least `longestErrorBytes` of it. */
  readonly stagingBytes?: number;
  /** The dataset; `createCatalogue(stagingBytes)` by default. */
  readonly items?: readonly Item[];
}

/** The shared state: the items by id, built once at startup and never changed. */
export interface JsonLookupShared {
  readonly items: ReadonlyMap<string, Item>;
}

const itemPathPrefix = "/items/";

/** The raw `:id` segment of a `/items/:id` path, or undefined for any other path. */
function itemSegment(path: string): string | undefined {
  if (!path.startsWith(itemPathPrefix)) return undefined;
  const segment = path.slice(itemPathPrefix.length);
  return segment === "" || segment.includes("/") ? undefined : segment;
}

/**
 * The router decodes `:id` with `decodeURIComponent` and answers a malformed escape with its own
 * text/plain 400 before any handler runs; this API answers JSON, so the check comes first here.
 * Escapes that are not even `%` and two hex digits never get this far: the engine rejects the
 * request target (RFC 9112 §3.2, RFC 3986 §2.1).
 */
const malformedIdAsJson = middleware<object, object, JsonLookupShared>({
  before(ctx) {
    const segment = itemSegment(ctx.request.path);
    if (segment === undefined) return;
    try {
      decodeURIComponent(segment);
    } catch {
      ctx.response.json(400, itemErrors.malformedId());
      return stopChain;
    }
  },
});

/**
 * A read-only JSON API over an in-memory catalogue built at startup.
 * `GET /items` lists `{ count, items: [{ id, name, price }] }`; `GET /items/:id` answers the item,
 * 404 `{"error":"not found","id":…}`, or 400 for an id that is malformed or over `maxIdBytes`.
 * Every body is JSON drafted into `stagingBytes` of staging: a body that does not fit is refused
 * whole with a JSON 500 `{"error":"response too large",…}`, never sent truncated. Unexpected
 * errors are the framework's bare 500.
 *
 * @example
 * const app = createJsonLookupApp();
 * const response = await app.request("/items/mug");
 * await response.json(); // { id: "mug", name: "Mug", price: "8.00", ... }
 */
export function createJsonLookupApp(options: JsonLookupOptions = {}): App<JsonLookupShared> {
  const stagingBytes = options.stagingBytes ?? defaultStagingBytes;
  const errorBytes = longestErrorBytes(stagingBytes);
  if (stagingBytes < errorBytes) {
    throw new RangeError(
      `json-lookup: stagingBytes must be at least ${errorBytes}, the longest error body`,
    );
  }
  const items = options.items ?? createCatalogue(stagingBytes);
  const app = new App<JsonLookupShared>({
    shared: { items: new Map(items.map((item) => [item.id, item])) },
    limits: { stagingBytes },
    ...(options.io ? { io: options.io } : {}),
  });
  const api = app.use(malformedIdAsJson);

  api.route("GET", "/items", (ctx) => {
    const summaries = Array.from(ctx.shared.items.values(), ({ id, name, price }) => ({
      id,
      name,
      price,
    }));
    sendWithinStaging(ctx.response, { count: summaries.length, items: summaries }, stagingBytes);
  });

  api.route("GET", "/items/:id", (ctx) => {
    const { id } = ctx.params;
    if (Buffer.byteLength(id) > maxIdBytes) {
      ctx.response.json(400, itemErrors.idTooLong());
      return;
    }
    const item = ctx.shared.items.get(id);
    if (item === undefined) {
      ctx.response.json(404, itemErrors.notFound(id));
      return;
    }
    sendWithinStaging(ctx.response, item, stagingBytes, id);
  });
  return app;
}

/**
 * Answers 200 with `value` as JSON, or, when it does not fit in staging, a JSON 500 saying so.
 * `json()` throws `ResponseLimitError` before anything is staged or sent, and the second `json()`
 * replaces status, type and body, so the client gets one whole answer or the other. A 500: the
 * request is fine, the server cannot produce the representation (RFC 9110 §15.6.1); 507 is
 * WebDAV's "cannot store" (RFC 4918 §11.5), not this.
 */
function sendWithinStaging(
  response: ResponseDraft,
  value: unknown,
  stagingBytes: number,
  id?: string,
): void {
  try {
    response.json(200, value);
  } catch (error) {
    if (!(error instanceof ResponseLimitError)) throw error;
    response.json(500, itemErrors.tooLarge(id, stagingBytes));
  }
}
