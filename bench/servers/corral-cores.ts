// The corral group of the `cores` scenario: `serve()` starts `--processes N` processes of
// corral-cores-hello.ts on one port (reusePort); prints `PIDS [..]` and `READY <port>`. SIGTERM
// stops the group (serve's own signal handling).
import { serve } from "corral";
import { announceReady, parsePort } from "./cli.ts";
import { parseProcesses } from "./processes-argument.ts";

const group = await serve(`${import.meta.dir}/corral-cores-hello.ts`, {
  port: parsePort(),
  processes: parseProcesses(),
  log: null,
});
console.log(`PIDS ${JSON.stringify(group.pids())}`);
announceReady(group.port);
