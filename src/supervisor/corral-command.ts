#!/usr/bin/env bun
// `corral ENTRY --port N [--processes N] [--hostname H]`: serves the App that ENTRY exports by
// default on N processes (the number of cores unless given), all on one port with reusePort.
import { parseServeArguments } from "./command-arguments.ts";
import { serve } from "./serve.ts";

const usage =
  "usage: corral <entry module> --port <0-65535> [--processes <n>] [--hostname <address>]";
const parsed = parseServeArguments(process.argv.slice(2));
if (typeof parsed === "string" || parsed.rest.length !== 1 || parsed.port === undefined) {
  console.error(
    `${typeof parsed === "string" ? parsed : "missing entry module or --port"}\n${usage}`,
  );
  process.exit(2);
}
try {
  const group = await serve(parsed.rest[0]!, {
    port: parsed.port,
    processes: parsed.processes,
    ...(parsed.hostname === undefined ? {} : { hostname: parsed.hostname }),
  });
  console.log(
    `corral listening on http://${group.hostname}:${group.port}/ (${group.processes} processes)`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
