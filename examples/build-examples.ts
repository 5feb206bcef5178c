// `bun run examples`: compiles the demo and every example to one executable each in dist/.
import { readdirSync } from "node:fs";

const examplesDirectory = import.meta.dir;
const root = `${examplesDirectory}/..`;
const names = readdirSync(examplesDirectory, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "shared")
  .map((entry) => entry.name)
  .sort();

let failed = 0;
for (const name of names) {
  const outfile = `${root}/dist/${name}`;
  const build = Bun.spawnSync(
    ["bun", "build", "--compile", `examples/${name}/main.ts`, "--outfile", outfile],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  if (build.exitCode === 0) {
    console.log(`built dist/${name}`);
  } else {
    failed++;
    console.error(`failed to build ${name}:\n${build.stderr.toString()}${build.stdout.toString()}`);
  }
}
console.log(
  `${names.length - failed} of ${names.length} executables in dist/ (run one: dist/NAME --port 3000)`,
);
process.exit(failed === 0 ? 0 : 1);
