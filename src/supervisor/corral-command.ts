#!/usr/bin/env bun
// `corral ENTRY --port N [--processes N] [--hostname H]`: serves the App that ENTRY exports by
// default on N processes (the number of cores unless given), all on one port with reusePort.
import { parseServeArguments } from "./command-arguments.ts";
import { serve } from "./serve.ts";

const usage =
  "usage: corral <entry module> --port <0-65535> [--processes <n>] [--hostname <address>]";
const parsed = parseServeArguments(process.argv.slice(2));
const problem = argumentProblem(parsed);
if (typeof parsed === "string" || problem !== undefined || parsed.port === undefined) {
  console.error(`${problem}\n${usage}`);
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

/** What is wrong with the arguments besides a malformed number, if anything. */
function argumentProblem(parsed: ReturnType<typeof parseServeArguments>): string | undefined {
  if (typeof parsed === "string") return parsed;
  // An option it does not know would otherwise be taken for the entry module's path.
  const unknown = parsed.rest.find((argument) => argument.startsWith("-"));
  if (unknown !== undefined) return `unknown option ${JSON.stringify(unknown)}`;
  if (parsed.rest.length === 0) return "missing entry module";
  if (parsed.rest.length > 1)
    return `one entry module, got ${parsed.rest.length}: ${parsed.rest.join(" ")}`;
  if (parsed.port === undefined) return "missing --port";
  return undefined;
}
