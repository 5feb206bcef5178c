// Bun.serve doing the demo's GET /hello and POST /form the usual way: the name from
// `URL.searchParams`, the form from `request.formData()` (which has no bound on the number of
// entries), each entry answered as a `name=value` line.
import { helloText } from "./payloads.ts";
import { textHeaders as headers, serveFetch } from "./serve-fetch.ts";

serveFetch(async (request) => {
  const url = new URL(request.url);
  if (request.method === "GET" && url.pathname === "/hello") {
    return new Response(url.searchParams.get("name") ?? helloText, { headers });
  }
  if (request.method === "POST" && url.pathname === "/form") {
    const lines: string[] = [];
    for (const [name, value] of await request.formData()) lines.push(`${name}=${value}\n`);
    return new Response(lines.join(""), { headers });
  }
  return new Response(null, { status: 404 });
});
