// `bun run example NAME --port N`: runs examples/NAME/main.ts with the remaining arguments.
import { readdirSync } from "node:fs";

const [name, ...rest] = Bun.argv.slice(2);
const available = readdirSync(import.meta.dir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "shared")
  .sort()
  .map((entry) => entry.name);
if (name === undefined || !available.includes(name)) {
  console.error(`usage: bun run example <${available.join("|")}> --port <0-65535>`);
  process.exit(2);
}
process.argv.splice(2, process.argv.length, ...rest);
await import(`./${name}/main.ts`);
