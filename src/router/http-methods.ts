/**
 * The methods a route can be registered for (RFC 9110 §9.3), in upper case. Anything else is a
 * `TypeError` at registration; a request with another method is answered 501 or 405.
 *
 * @example
 * const method: HttpMethod = "PATCH";
 */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** Every `HttpMethod`. */
export const httpMethods: readonly HttpMethod[] = Object.freeze([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

const methodSet: ReadonlySet<string> = new Set(httpMethods);

/** Throws a `TypeError` unless `method` is an `HttpMethod` (upper case, as on the wire). */
export function assertHttpMethod(method: unknown): asserts method is HttpMethod {
  if (typeof method === "string" && methodSet.has(method)) return;
  const hint =
    typeof method === "string" && methodSet.has(method.toUpperCase())
      ? ` (methods are case-sensitive, RFC 9110 §9.1: write "${method.toUpperCase()}")`
      : "";
  throw new TypeError(
    `corral: ${JSON.stringify(method)} is not one of ${httpMethods.join(", ")}${hint}`,
  );
}
