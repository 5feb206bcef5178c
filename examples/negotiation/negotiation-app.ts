import { App, type Io, negotiate, type RequestView } from "corral";

/** What `/greeting` is available as, in the server's order of preference (ties go left). */
export const greetingTypes = [
  "application/json",
  "text/html; charset=utf-8",
  "text/plain; charset=utf-8",
] as const;

/** Options of `createNegotiationApp`. */
export interface NegotiationOptions {
  readonly io?: Io;
  /** The greeting every representation carries; "Hello, World!" by default. */
  readonly greeting?: string;
}

/** The shared state: the greeting, its HTML page and the 406 text, made once at startup. */
export interface NegotiationShared {
  readonly greeting: string;
  /** The HTML page, encoded once. */
  readonly html: Uint8Array;
  readonly notAcceptable: string;
}

/**
 * `GET /greeting` (and HEAD) in the representation the `Accept` header prefers: JSON
 * `{"greeting":…}`, an HTML page or a line of text, chosen by `negotiate` (q-values, wildcards,
 * most specific range first, ties to JSON, then HTML, then text). Nothing acceptable is a 406
 * whose text lists the three types. Every answer of the resource carries `Vary: Accept`.
 *
 * @example
 * const app = createNegotiationApp();
 * const response = await app.request("/greeting", { headers: { Accept: "text/html" } });
 * response.headers.get("content-type"); // "text/html; charset=utf-8"
 */
export function createNegotiationApp(options: NegotiationOptions = {}): App<NegotiationShared> {
  const greeting = options.greeting ?? "Hello, World!";
  const app = new App<NegotiationShared>({
    shared: {
      greeting,
      html: new TextEncoder().encode(greetingPage(greeting)),
      notAcceptable: `Not Acceptable. /greeting is available as:\n${greetingTypes.join("\n")}\n`,
    },
    ...(options.io ? { io: options.io } : {}),
  });

  app.route("GET", "/greeting", (ctx) => {
    // RFC 9110 §12.5.5: the choice depends on Accept, so caches must key on it, the 406 included.
    ctx.response.header("Vary", "Accept");
    const shared = ctx.shared;
    switch (negotiate(acceptValue(ctx.request), greetingTypes)) {
      case "application/json":
        ctx.response.json(200, { greeting: shared.greeting });
        return;
      case "text/html; charset=utf-8":
        ctx.response.bytes(200, "text/html; charset=utf-8", shared.html);
        return;
      case "text/plain; charset=utf-8":
        ctx.response.text(200, `${shared.greeting}\n`);
        return;
      default:
        // RFC 9110 §15.5.7: a 406 should list the available representations.
        ctx.response.text(406, shared.notAcceptable);
    }
  });
  return app;
}

/**
 * Every `Accept` line joined into one list value (RFC 9110 §5.3: a list field may be split over
 * several lines, and means their comma-joined values); `undefined` when there is none.
 */
function acceptValue(request: RequestView): string | undefined {
  const values: string[] = [];
  for (const [name, value] of request.headers()) {
    if (name.toLowerCase() === "accept") values.push(value);
  }
  return values.length === 0 ? undefined : values.join(", ");
}

function greetingPage(greeting: string): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    '<meta charset="utf-8">',
    "<title>Greeting</title>",
    `<p>${escapeHtml(greeting)}</p>`,
    "</html>",
    "",
  ].join("\n");
}

const htmlEscapes: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEscapes[character]!);
}
