import type { App } from "corral";
import { RawClient, type WireResponse } from "../../engine/test/support/raw-client.ts";
import { listenQuietly } from "./listen-quietly.ts";

/**
 * Starts `app` on a free port and sends a `GET` for each of `paths`, pipelined on one raw
 * connection: the answers as they came off the wire, in order.
 */
export async function getPipelined<Shared, Locals extends object>(
  app: App<Shared, Locals>,
  paths: readonly string[],
): Promise<WireResponse[]> {
  const server = listenQuietly(app);
  using client = await RawClient.connect(server.port);
  client.send(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`).join(""));
  return await client.responses(paths.length);
}
