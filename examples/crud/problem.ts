import type { Context, ResponseDraft } from "corral";

/**
 * One reason a request was refused, pointing at what was wrong (RFC 9457 §3, "errors").
 *
 * @example
 * const entry: ProblemEntry = { pointer: "#/title", detail: "must be a string" };
 */
export interface ProblemEntry {
  /** A JSON Pointer into the request body as a URI fragment, e.g. `#/title`. */
  readonly pointer?: string;
  /** A query parameter's name, e.g. `limit`. */
  readonly parameter?: string;
  readonly detail: string;
}

const titles = {
  400: "Bad Request",
  404: "Not Found",
  412: "Precondition Failed",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  428: "Precondition Required",
  507: "Insufficient Storage",
} as const;

/**
 * The statuses this example answers with a problem document.
 *
 * @example
 * const status: ProblemStatus = 412;
 */
export type ProblemStatus = keyof typeof titles;

/**
 * The media type of a problem document (RFC 9457 §3).
 *
 * @example
 * expect(response.headers.get("content-type")).toBe(problemContentType);
 */
export const problemContentType = "application/problem+json";

/**
 * An error that is a JSON problem document (RFC 9457): thrown by a handler, it is written by
 * `writeProblem` (see `answeringProblems`). Its text never echoes client input, so its size is
 * bounded whatever the request held.
 *
 * @example
 * throw new Problem(404, "there is no note with this id");
 */
export class Problem extends Error {
  readonly status: ProblemStatus;
  readonly errors: readonly ProblemEntry[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: ProblemStatus,
    detail: string,
    options: {
      readonly errors?: readonly ProblemEntry[];
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(detail);
    this.name = "Problem";
    this.status = status;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }
}

/**
 * Writes `problem` as the response: its status, headers and an `application/problem+json`
 * body with `title` (the status phrase, as RFC 9457 §4.2.1 asks when `type` is
 * left as `about:blank`), `status`, `detail`
 * and, when there are any, `errors`.
 *
 * @example
 * writeProblem(ctx.response, new Problem(404, "there is no note with this id"));
 */
export function writeProblem(response: ResponseDraft, problem: Problem): void {
  const document = {
    title: titles[problem.status],
    status: problem.status,
    detail: problem.message,
    ...(problem.errors.length > 0 ? { errors: problem.errors } : {}),
  };
  response.json(problem.status, document);
  response.header("Content-Type", problemContentType);
  for (const [name, value] of Object.entries(problem.headers)) response.header(name, value);
}

// biome-ignore lint/suspicious/noExplicitAny: any endpoint's context has a response draft.
type AnyContext = Context<any, any, any>;
const endpointMethods = ["get", "post", "put", "patch", "delete"] as const;

/**
 * Wraps an endpoint's (synchronous) methods so that a thrown `Problem` is answered as its
 * document; any other error still propagates to the App's error mapping (a bare 500). The
 * handlers throw before setting any header, so the draft holds nothing stale.
 *
 * Why not `app.onError`: a body written there gets a second Content-Type line (the
 * `text/plain` of the bare 500 the mapper starts from), reported to the framework; once fixed,
 * `app.onError((error, ctx) => writeProblem(...))` replaces this wrapper.
 *
 * @example
 * app.endpoint("/notes", answeringProblems(new NotesCollection()));
 */
export function answeringProblems<Endpoint extends object>(endpoint: Endpoint): Endpoint {
  const wrapped: Record<string, (ctx: AnyContext) => void> = {};
  for (const name of endpointMethods) {
    const method = (endpoint as Record<string, unknown>)[name];
    if (typeof method !== "function") continue;
    wrapped[name] = (ctx) => {
      try {
        method.call(endpoint, ctx);
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        writeProblem(ctx.response, error);
      }
    };
  }
  return wrapped as Endpoint;
}
