// `bun run example uploads --port <port> [--dir <folder>]`: streamed uploads to a folder.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveExample } from "../shared/serve-example.ts";
import { createUploadsApp } from "./uploads-app.ts";

const args = process.argv.slice(2);
let directory: string | undefined;
const rest: string[] = [];
for (let index = 0; index < args.length; index++) {
  const argument = args[index]!;
  if (argument === "--dir") directory = args[++index] ?? "";
  else if (argument.startsWith("--dir=")) directory = argument.slice("--dir=".length);
  else rest.push(argument);
}
if (directory === "") {
  console.error("usage: bun run example uploads --port <0-65535> [--dir <folder>]");
  process.exit(2);
}
directory ??= mkdtempSync(join(tmpdir(), "corral-uploads-"));
console.log(`corral uploads: files go to ${directory}`);
serveExample("uploads", createUploadsApp({ directory }), rest);
