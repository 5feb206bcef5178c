// Bun.serve whose GET /slow waits 2 s before answering; anything else answers "pong".
import { abuse } from "./payloads.ts";
import { textHeaders as headers, serveFetch } from "./serve-fetch.ts";

serveFetch(async (request) => {
  if (new URL(request.url).pathname === abuse.slowPath) {
    await Bun.sleep(abuse.slowMilliseconds);
    return new Response("slept", { headers });
  }
  return new Response(abuse.pingText, { headers });
});
