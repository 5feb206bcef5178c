// The README and docs/guide.md show a new user the same first steps; install.test.ts writes the
// quick start's code into its project as index.ts, so the user's strict tsc checks it.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { quickStart } from "./support/quick-start.ts";

const repositoryRoot = join(import.meta.dir, "../..");

test("README and guide open with the same five-line quick start; install.test.ts type-checks it", async () => {
  const readme = await Bun.file(join(repositoryRoot, "README.md")).text();
  const guide = await Bun.file(join(repositoryRoot, "docs/guide.md")).text();
  const firstSection = (markdown: string) => /^## (.+)$/m.exec(markdown)?.[1];
  const readmeStart = quickStart(readme);
  expect({
    sections: [firstSection(readme), firstSection(guide)],
    guide: quickStart(guide),
    shell: readmeStart.shell.startsWith("bun init -y && bun add "),
    lines: `${readmeStart.shell}${readmeStart.code}`.trimEnd().split("\n").length,
  }).toEqual({ sections: ["Install", "Quick start"], guide: readmeStart, shell: true, lines: 5 });
});
