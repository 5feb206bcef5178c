// Preloaded by bunfig.toml before every test file: socket tests wait for conditions, not time,
// and this is only a backstop against a hung test. Bun's own default (5 s) is too short for a
// suite that starts servers and child processes on a loaded 2-core machine.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(20_000);
