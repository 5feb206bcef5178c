/** The hello-world body every server answers, as text and pre-encoded. */
export const helloText = "Hello, World!";
export const helloBytes: Uint8Array = new TextEncoder().encode(helloText);

/** Size of the large response body. */
export const bigBodyBytes = 5 * 1024 * 1024;

/** The path the large-body servers answer. */
export const bigPath = "/big";

/** A 5 MiB body with a repeating pattern (not zeros, so nothing can special-case it). */
export function makeBigBody(): Uint8Array {
  const body = new Uint8Array(bigBodyBytes);
  for (let index = 0; index < body.length; index++) body[index] = 0x41 + (index % 26);
  return body;
}

/**
 * The App-pipeline scenarios: `GET /hello?name=world` answers the decoded name as UTF-8 text;
 * without a name, the shared greeting (`helloText`). Every server does the same work.
 */
export const namePath = "/hello";
export const nameQueryValue = "world";
export const nameTarget = `${namePath}?name=${nameQueryValue}`;
/** The decode buffer of the corral servers: allocated once at startup, reused by every request. */
export const nameBufferBytes = 1024;
/** Content-Type of the answer (some frameworks spell it differently; see `sameMediaType`). */
export const nameContentType = "text/plain; charset=utf-8";

/** The event every SSE stream receives on a broadcast (`bench/servers/corral-sse.ts`). */
export interface BroadcastEvent {
  readonly seq: number;
  /** `performance.timeOrigin + performance.now()` in the server when it published. */
  readonly publishedAt: number;
}

/** The abuse scenario (`bench/abuse.ts`): what its servers answer and the sizes of its attacks. */
export const abuse = {
  /** A side client's request on the servers that have no demo route. */
  pingPath: "/ping",
  pingText: "pong",
  /** A 60 KB body, copied into the worker's staging by corral: too big for the output buffer. */
  stagedPath: "/staged",
  stagedBodyBytes: 60_000,
  /** Workers of the staged-body server: as many as the attacking connections. */
  stagedWorkers: 8,
  /** The pool route: each request awaits one job that sleeps this long on a pool thread. */
  jobPath: "/job",
  jobMilliseconds: 200,
  poolThreads: 2,
  /** Workers of the pool and route-flood servers. */
  routeFloodWorkers: 16,
  /** The slow route: each request waits this long (a slow query, an upstream call). */
  slowPath: "/slow",
  slowMilliseconds: 2_000,
} as const;

/** The staged body, a repeating pattern. */
export function makeStagedBody(): Uint8Array {
  const body = new Uint8Array(abuse.stagedBodyBytes);
  for (let index = 0; index < body.length; index++) body[index] = 0x61 + (index % 26);
  return body;
}

/** The compress scenario's path and body: 16 KiB of todo-like JSON (`bench --only compress`). */
export const jsonPath = "/todos.json";
export const jsonBody: Uint8Array = makeJsonBody(16 * 1024);

function makeJsonBody(bytes: number): Uint8Array {
  const items: unknown[] = [];
  for (let id = 1; ; id++) {
    const item = {
      id,
      title: `todo number ${id}: ${"abcdefghij".slice(id % 10)}`,
      done: id % 3 === 0,
    };
    if (JSON.stringify([...items, item]).length > bytes) break;
    items.push(item);
  }
  const text = JSON.stringify(items);
  // Padded to exactly `bytes` with spaces before the closing bracket: still valid JSON.
  return new TextEncoder().encode(`${text.slice(0, -1)}${" ".repeat(bytes - text.length)}]`);
}
