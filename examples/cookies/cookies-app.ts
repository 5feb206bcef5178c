import { App, type Io, type ResponseDraft } from "corral";
import { CookieRequestError, readCookieRequest } from "./cookie-request.ts";

/**
 * A cookie playground: `POST /cookies/:name` sets one (value, `maxAge` and `expires` from the
 * query or a form), `GET /cookies` lists the request's cookies in order as JSON, and
 * `DELETE /cookies/:name` deletes one. Names and values are validated by `setCookie` (RFC 6265):
 * an invalid one is answered 400 with the validation message as JSON, never sent.
 */
/** Cookies `GET /cookies` lists; more is a 431 (RFC 6585 §5). */
export const maxListedCookies = 1000;

export function createCookiesApp(io?: Io): App<object> {
  const app = new App<object>({ shared: {}, ...(io ? { io } : {}) });

  app.route("GET", "/cookies", (ctx) => {
    const listed = ctx.request.cookies();
    // Each cookie costs its JSON 23 bytes on top of its text, which is at most twice the head's
    // bytes (a `\` or a Latin-1 byte becomes two): 4,000 cookies of `a=;` in a 12 KiB head would
    // be 96 KiB of JSON, over the 64 KiB staging, a 500. Counted, the JSON stays under 2 x 16 KiB
    // (maxHeaderBytes) + 1000 x 23 bytes: 55 KiB.
    if (listed.length > maxListedCookies) {
      ctx.response.json(431, {
        error: `more than ${maxListedCookies} cookies (${listed.length}); browsers send far fewer`,
      });
      return;
    }
    const cookies = listed.map(({ name, value }) => ({ name, value }));
    ctx.response.json(200, { cookies });
  });

  app.route("POST", "/cookies/:name", (ctx) =>
    answeringBadRequests(ctx.response, () => {
      const { name } = ctx.params;
      const { value, options } = readCookieRequest(ctx.request);
      validated(() => ctx.response.setCookie(name, value, options));
      ctx.response.json(200, {
        name,
        value,
        maxAge: options.maxAge ?? null,
        expires: options.expires?.toUTCString() ?? null,
      });
    }),
  );

  app.route("DELETE", "/cookies/:name", (ctx) =>
    answeringBadRequests(ctx.response, () => {
      const { name } = ctx.params;
      // RFC 6265 §3.1: a server deletes a cookie by sending it again with an expiry in the past;
      // deleteCookie sends Max-Age=0 and Expires in 1970, with the Path it was set with.
      validated(() => ctx.response.deleteCookie(name, { path: "/" }));
      ctx.response.json(200, { deleted: name });
    }),
  );
  return app;
}

/** Runs a cookie write; the `TypeError` it throws for an invalid name or value becomes a 400. */
function validated(write: () => void): void {
  try {
    write();
  } catch (error) {
    if (error instanceof TypeError) throw new CookieRequestError(error.message);
    throw error;
  }
}

/** Runs `handle`, answering a `CookieRequestError` with 400 and `{"error": message}`. */
function answeringBadRequests(response: ResponseDraft, handle: () => void): void {
  try {
    handle();
  } catch (error) {
    if (!(error instanceof CookieRequestError)) throw error;
    response.json(400, { error: error.message });
  }
}
