// Bun.serve answering GET /staged with the same 60 KB body as corral-staged.ts, anything else
// "pong".
import { abuse, makeStagedBody } from "./payloads.ts";
import { serveFetch, textHeaders } from "./serve-fetch.ts";

const stagedBody = makeStagedBody();
const stagedHeaders = { "Content-Type": "application/octet-stream" };

serveFetch((request) => {
  if (new URL(request.url).pathname === abuse.stagedPath) {
    return new Response(stagedBody, { headers: stagedHeaders });
  }
  return new Response(abuse.pingText, { headers: textHeaders });
});
