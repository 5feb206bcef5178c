import { announceReady, parsePort } from "./cli.ts";

/** Text answers of the abuse scenario's Bun.serve servers. */
export const textHeaders = { "Content-Type": "text/plain; charset=utf-8" } as const;

/** `Bun.serve` with `fetch` on 127.0.0.1 at `--port`, development mode off; prints READY. */
export function serveFetch(fetch: (request: Request) => Response | Promise<Response>): void {
  const server = Bun.serve({ hostname: "127.0.0.1", port: parsePort(), development: false, fetch });
  announceReady(server.port ?? 0);
}
