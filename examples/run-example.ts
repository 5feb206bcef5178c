// `bun run example NAME --port N [--processes N]`: runs the App of examples/NAME/main.ts.
import { readdirSync } from "node:fs";
import { type CreateApp, serveExample } from "./shared/serve-example.ts";

const [name, ...rest] = Bun.argv.slice(2);
const available = readdirSync(import.meta.dir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "shared")
  .sort()
  .map((entry) => entry.name);
if (name === undefined || !available.includes(name)) {
  console.error(
    `usage: bun run example <${available.join("|")}> --port <0-65535> [--processes <1-1024>]`,
  );
  process.exit(2);
}
const entryPath = `${import.meta.dir}/${name}/main.ts`;
// An example with options of its own (sessions: --redis) takes them out first.
const entry = (await import(entryPath)) as {
  default: CreateApp;
  prepare?: (args: readonly string[]) => readonly string[];
  startPath?: string;
};
await serveExample(name, entryPath, entry.default, entry.prepare?.(rest) ?? rest, entry.startPath);
