// Seeded random middleware chains and handlers, synchronous and not, that pass, stop, draft
// without "stop", throw, fail in their after hooks or see their client leave, with an onError
// that leaves, replaces, rethrows or fails, on the route, a path no route has and HEAD; run
// through the App and compared with a model of the guide's rules ("Middleware", "Errors"): which
// answer is sent, which headers it carries (a before hook's on every answer, the handler's only
// on its own, the after hooks' on every answer, once), and which cleanups run, in which order,
// with which outcome. Set CORRAL_FUZZ_SEED to replay another run.
import { afterAll, test } from "bun:test";
import { App, HttpError, type Middleware, middleware } from "corral";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";

const cases = 800;

type Before =
  | "none"
  | "pass"
  | "passAsync"
  | "draft"
  | "stop"
  | "throwHttp"
  | "throwHttpAsync"
  | "throwPlain";
type After = "none" | "header" | "headerAsync" | "throwOnSuccess" | "throwAlways";
/** `clientLeaves`: the handler waits, and the client disconnects meanwhile. */
type Handler =
  | "text"
  | "textAsync"
  | "throwHttp"
  | "throwHttpAsync"
  | "throwPlain"
  | "clientLeaves";
type OnError = "none" | "leave" | "replace" | "replaceAsync" | "rethrow" | "throwOther";

interface Link {
  readonly before: Before;
  readonly after: After;
  readonly cleanup: boolean;
}

interface Plan {
  readonly chain: readonly Link[];
  readonly handler: Handler;
  /** The request: the route, a path no route has (the router's 404), or HEAD on the route. */
  readonly request: "get" | "missing" | "head";
  readonly onError: OnError;
}

interface Outcome {
  readonly status: number;
  readonly body?: string;
  /** Headers added by hooks and the handler, sorted, with their values. */
  readonly headers: readonly string[];
  /** Cleanups in the order they ran: `index:outcome`. */
  readonly cleanups: readonly string[];
}

const befores: readonly Before[] = [
  "none",
  "pass",
  "passAsync",
  "draft",
  "stop",
  "throwHttp",
  "throwHttpAsync",
  "throwPlain",
];
const afters: readonly After[] = ["none", "header", "headerAsync", "throwOnSuccess", "throwAlways"];
const handlers: readonly Handler[] = [
  "text",
  "textAsync",
  "throwHttp",
  "throwHttpAsync",
  "throwPlain",
  "clientLeaves",
];
const onErrors: readonly OnError[] = [
  "none",
  "leave",
  "replace",
  "replaceAsync",
  "rethrow",
  "throwOther",
];

function plan(random: SeededRandom): Plan {
  const chain = Array.from({ length: random.below(5) }, () => ({
    // Mostly passing hooks, so that chains reach their handler often.
    before: random.oneIn(2) ? "pass" : random.pick(befores),
    after: random.oneIn(2) ? "none" : random.pick(afters),
    cleanup: random.oneIn(2),
  })) as Link[];
  const request = random.oneIn(6) ? "missing" : random.oneIn(5) ? "head" : "get";
  return { chain, handler: random.pick(handlers), request, onError: random.pick(onErrors) };
}

/** What the guide says the App answers. */
function model({ chain, handler, request, onError }: Plan): Outcome {
  const headers = new Set<string>();
  let status = 0;
  let body: string | undefined;
  let failed = false;
  let entered = 0;
  let reachedHandler = true;
  let drafted = false;
  for (const [index, link] of chain.entries()) {
    entered = index + 1;
    if (link.before === "none") continue;
    headers.add(`x-before-${index}`);
    if (link.before === "pass" || link.before === "passAsync") continue;
    // An answer drafted without "stop": the handler runs, but may not replace it.
    if (link.before === "draft") {
      drafted = true;
      continue;
    }
    reachedHandler = false;
    if (link.before === "stop") {
      status = 200 + index;
      body = `stopped by ${index}`;
    } else {
      failed = true;
      status = link.before === "throwPlain" ? 500 : 400 + index;
    }
    break;
  }
  if (reachedHandler && request !== "missing" && handler === "clientLeaves") {
    // No answer: every middleware entered gets its cleanup with "aborted", and nothing else runs.
    const cleanups = chain.flatMap((link, index) => (link.cleanup ? [`${index}:aborted`] : []));
    return { status: 0, headers: [], cleanups: cleanups.reverse() };
  }
  if (reachedHandler && request === "missing") {
    // The router's answer, drafted like a handler's (and, like it, refused over an answer a
    // before hook drafted without "stop"): the after hooks run on it as on any.
    failed = drafted;
    status = drafted ? 500 : 404;
  } else if (reachedHandler) {
    if ((handler === "text" || handler === "textAsync") && drafted) {
      failed = true;
      status = 500;
    } else if (handler === "text" || handler === "textAsync") {
      status = 200;
      body = "handled";
      headers.add("x-handler");
    } else {
      failed = true;
      status = handler === "throwPlain" ? 500 : 422;
    }
  }
  // The after hooks of every middleware entered, last first; one that throws on a drafted answer
  // turns it into the error's answer, and they all run once more on that.
  // onError sees every error with its answer drafted, before the after hooks run on it.
  const answerError = () => {
    if (onError === "replace" || onError === "replaceAsync") {
      status = 503;
      headers.add("x-onerror");
    } else if (onError === "throwOther") {
      status = 500;
    }
  };
  if (failed) answerError();
  const afterHooks = chain.slice(0, entered).reverse();
  const throwing = (link: Link) =>
    link.after === "throwAlways" || (!failed && link.after === "throwOnSuccess");
  if (!failed && afterHooks.some(throwing)) {
    failed = true;
    status = 500;
    body = undefined;
    headers.delete("x-handler");
    answerError();
  }
  if (afterHooks.some(throwing)) {
    // One that throws on the error's answer too leaves a bare 500: the before hooks' headers only.
    status = 500;
    headers.delete("x-onerror");
  } else {
    for (const [at, link] of afterHooks.entries()) {
      if (link.after === "header" || link.after === "headerAsync") {
        headers.add(`x-after-${afterHooks.length - 1 - at}`);
      }
    }
  }
  const cleanups = afterHooks.flatMap((link, at) =>
    link.cleanup ? [`${afterHooks.length - 1 - at}:${failed ? "error" : "success"}`] : [],
  );
  // HEAD is answered by the GET route with the same head and no body.
  if (request === "head" && body !== undefined) body = "";
  return {
    status,
    ...(body === undefined ? {} : { body }),
    headers: [...headers].sort().map((name) => `${name}: 1`),
    cleanups,
  };
}

function appFor({ chain, handler, onError }: Plan, cleanups: string[], waiting: () => void): App {
  const app = new App({ log: null, limits: { maxConnections: 4, workers: 2 } });
  if (onError !== "none") {
    app.onError(async (error, ctx) => {
      if (onError === "replaceAsync") await Promise.resolve();
      if (onError === "replace" || onError === "replaceAsync") {
        ctx.response.header("X-OnError", "1");
        ctx.response.json(503, { replaced: true });
      } else if (onError === "rethrow") {
        throw error;
      } else if (onError === "throwOther") {
        throw new Error("onError broke");
      }
    });
  }
  for (const [index, link] of chain.entries()) {
    const hooks: Middleware<Record<never, never>> = {} as Middleware<Record<never, never>>;
    const mark = (ctx: { response: { header(name: string, value: string): unknown } }) =>
      ctx.response.header(`X-Before-${index}`, "1");
    const before = {
      none: undefined,
      pass: (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
      },
      passAsync: async (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        await Promise.resolve();
      },
      draft: (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        ctx.response.text(203, `drafted by ${index}`);
      },
      stop: (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        ctx.response.text(200 + index, `stopped by ${index}`);
        return "stop" as const;
      },
      throwHttp: (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        throw new HttpError(400 + index, `refused by ${index}`);
      },
      throwHttpAsync: async (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        await Promise.resolve();
        throw new HttpError(400 + index, `refused by ${index}`);
      },
      throwPlain: (ctx: Parameters<NonNullable<typeof hooks.before>>[0]) => {
        mark(ctx);
        throw new Error(`broken ${index}`);
      },
    }[link.before];
    const after = {
      none: undefined,
      header: (ctx: Parameters<NonNullable<typeof hooks.after>>[0]) => {
        ctx.response.header(`X-After-${index}`, "1");
      },
      headerAsync: async (ctx: Parameters<NonNullable<typeof hooks.after>>[0]) => {
        await Promise.resolve();
        ctx.response.header(`X-After-${index}`, "1");
      },
      throwOnSuccess: (ctx: Parameters<NonNullable<typeof hooks.after>>[0]) => {
        if (ctx.error === undefined) throw new Error(`after ${index} failed`);
      },
      throwAlways: () => {
        throw new Error(`after ${index} always fails`);
      },
    }[link.after];
    const cleanup = link.cleanup
      ? (_ctx: unknown, outcome: string) => {
          cleanups.push(`${index}:${outcome}`);
        }
      : undefined;
    // A middleware with no hook at all is refused by use(): such a link gets a cleanup-free one.
    if (before === undefined && after === undefined && cleanup === undefined) {
      app.use(middleware({ after() {} }));
      continue;
    }
    app.use(middleware({ before, after, cleanup } as Parameters<typeof middleware>[0]));
  }
  app.route("GET", "/", async (ctx) => {
    ctx.response.header("X-Handler", "1");
    if (handler === "clientLeaves") {
      waiting();
      await ctx.sleep(60_000);
    }
    if (handler === "textAsync" || handler === "throwHttpAsync") await Promise.resolve();
    if (handler === "text" || handler === "textAsync") return ctx.response.text(200, "handled");
    if (handler === "throwPlain") throw new Error("handler broke");
    throw new HttpError(422, "handler refused");
  });
  return app;
}

const apps: App[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
});

test(`${cases} random middleware chains and handlers: the answer, its headers and the cleanups are what the guide says (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("pipeline", index);
    const planned = plan(new SeededRandom(seed));
    const cleanups: string[] = [];
    const client = new AbortController();
    const app = appFor(planned, cleanups, () => queueMicrotask(() => client.abort()));
    apps.push(app);
    const expected = model(planned);
    const answered = app.request(planned.request === "missing" ? "/missing" : "/", {
      method: planned.request === "head" ? "HEAD" : "GET",
      signal: client.signal,
    });
    let seen: Outcome;
    try {
      const response = await answered;
      const text = await response.text();
      seen = {
        status: response.status,
        ...(expected.body === undefined ? {} : { body: text }),
        // Each with its value: a header added twice would read "1, 1".
        headers: [...response.headers.keys()]
          .filter((name) => /^x-/.test(name))
          .sort()
          .map((name) => `${name}: ${response.headers.get(name)}`),
        cleanups,
      };
    } catch {
      // The client left: its cleanups may run a moment after the request rejected.
      const deadline = performance.now() + 1000;
      while (cleanups.length < expected.cleanups.length && performance.now() < deadline) {
        await Bun.sleep(1);
      }
      seen = { status: 0, headers: [], cleanups };
    }
    if (JSON.stringify(seen) !== JSON.stringify(expected)) {
      mismatches.push({ seed, planned: JSON.stringify(planned), expected, seen });
    }
    await app.stop();
    apps.pop();
  }
  expectNoMismatches(mismatches);
}, 60_000);
