/**
 * The error for a handler or hook that returned (or resolved to) a value. corral answers only
 * with what `ctx.response` drafted, so a returned `Response`, string or object (as `Bun.serve`,
 * Hono and Elysia handlers return their answers) would otherwise be dropped without a word and
 * the client sent an empty 200. The types already forbid it; this catches JavaScript callers
 * and casts. The App answers it 500 and logs it.
 */
export function returnedValueError(what: ReturnedValueSource, value: unknown): TypeError {
  return new TypeError(
    `corral: ${what} returned ${describeValue(value)}, which is not sent: corral answers with ` +
      "what ctx.response drafts (ctx.response.text(status, text), json(status, value), " +
      `bytes(...)), and ${returnRule[what]}`,
  );
}

/** Which function returned the value. */
export type ReturnedValueSource = "a route handler" | "a before hook" | "an after hook";

const returnRule: Readonly<Record<ReturnedValueSource, string>> = {
  "a route handler": "a handler returns nothing",
  "a before hook": 'a before hook returns nothing, or "stop" once it answered',
  "an after hook": "an after hook returns nothing",
};

function describeValue(value: unknown): string {
  if (value instanceof Response) return `a Response (status ${value.status})`;
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}
