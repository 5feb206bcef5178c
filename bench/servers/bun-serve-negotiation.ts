// Bun.serve choosing JSON, HTML or text for GET /greeting from `Accept` as hand-written
// negotiation often does: split on commas and semicolons, trim each part with a regular
// expression, highest q wins. `/^\s+|\s+$/g` is quadratic on a member with a long inner run of
// spaces: the `\s+$` branch is retried from every space of the run. corral's own list splitting
// once trimmed this way (with `[ \t]`), and the abuse scenario's Accept attack targets it.
import { serveFetch, textHeaders } from "./serve-fetch.ts";

const greeting = "Hello, World!";
const representations: Readonly<Record<string, () => Response>> = {
  "application/json": () => Response.json({ greeting }),
  "text/html": () =>
    new Response(`<!doctype html>\n<p>${greeting}</p>\n`, {
      headers: { "Content-Type": "text/html; charset=utf-8" },
    }),
  "text/plain": () => new Response(`${greeting}\n`, { headers: textHeaders }),
};

function trim(text: string): string {
  return text.replace(/^\s+|\s+$/g, "");
}

/** The offered type the client weights highest, or undefined when none is acceptable. */
function negotiate(accept: string): string | undefined {
  let best: string | undefined;
  let bestQuality = 0;
  for (const member of accept.split(",")) {
    const [range = "", ...parameters] = trim(member).split(";").map(trim);
    const weight = parameters.find((parameter) => parameter.startsWith("q="));
    const quality = weight === undefined ? 1 : Number(weight.slice(2));
    for (const type of Object.keys(representations)) {
      const [major] = type.split("/");
      const matches = range === type || range === `${major}/*` || range === "*/*";
      if (matches && quality > bestQuality) {
        best = type;
        bestQuality = quality;
      }
    }
  }
  return best;
}

serveFetch((request) => {
  if (new URL(request.url).pathname !== "/greeting") return new Response(null, { status: 404 });
  const type = negotiate(request.headers.get("accept") ?? "*/*");
  const response =
    type === undefined
      ? new Response("Not Acceptable\n", { status: 406 })
      : representations[type]!();
  response.headers.set("Vary", "Accept");
  return response;
});
