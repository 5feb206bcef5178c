import { type Handler, type Limits, listen, type Server } from "../../index.ts";

/** A server for one test, stopped by `await using`. */
export function startServer(
  handler: Handler,
  limits: Partial<Limits> = {},
): Server & AsyncDisposable {
  const server = listen({ port: 0, handler, limits, log: null });
  return Object.assign(server, {
    async [Symbol.asyncDispose]() {
      await server.stop({ graceMs: 100 });
    },
  });
}

/** Echoes what the engine parsed, so tests can assert the parse: method, target, body, headers. */
export const echoHandler: Handler = (exchange) => {
  exchange.setHeader("Content-Type", "text/plain");
  const headers: string[] = [];
  for (let index = 0; index < exchange.headerCount; index++) {
    headers.push(`${exchange.headerName(index)}=${exchange.headerValue(index)}`);
  }
  exchange.writeText(
    `${exchange.method} ${exchange.target} 1.${exchange.versionMinor}\n` +
      `path=${exchange.path} query=${exchange.query}\n` +
      `headers=${headers.join("|")}\n` +
      `body=${Buffer.from(exchange.body).toString("latin1")}`,
  );
};

/** Waits until `condition` holds, polling; fails after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}
