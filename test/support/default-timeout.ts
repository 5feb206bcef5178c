// Preloaded by bunfig.toml before the test files: a backstop of 20 s per test against a hung
// one. Socket tests wait for conditions, not time, and Bun's own default (5 s) is too short for
// a suite that starts servers, browsers and child processes on a loaded 2-core machine.
//
// `setDefaultTimeout` applies to the file it runs in only, and called here it covered only the
// first test file (Bun 1.4.4; bunfig has no key for it, and `bun test` must stay the command):
// under load a browser test without its own timeout was cut off at 5 s. So each test file is
// loaded with the call in front of its first line (on that line: line numbers stay the same).
import { plugin } from "bun";

plugin({
  name: "corral default test timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents: `import { setDefaultTimeout as corralDefaultTimeout } from "bun:test"; corralDefaultTimeout(20_000); ${await Bun.file(path).text()}`,
      loader: "ts",
    }));
  },
});
