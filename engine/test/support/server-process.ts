// A test server in a process of its own, as in production: a test in the same process as its
// server shares one event loop with it, and some races (a socket gone while it is written to)
// do not show there. The server script sends its first message over IPC when it listens (with
// its `port`) and answers each message it receives with its counters.
import { readdirSync, readlinkSync } from "node:fs";

/** A server process: its pid, its first message, and `ask()` for its counters. */
export interface ServerProcess extends AsyncDisposable {
  readonly pid: number;
  readonly ready: Record<string, unknown> & { readonly port: number };
  ask(): Promise<Record<string, unknown>>;
}

/** Starts `script` with Bun and waits for its first message. */
export async function startServerProcess(script: string): Promise<ServerProcess> {
  let answer: (message: Record<string, unknown>) => void = () => {};
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) => {
      answer = resolve;
    });
  const first = next();
  const child = Bun.spawn([process.execPath, script], {
    stdio: ["ignore", "ignore", "inherit"],
    ipc: (message) => answer(message),
  });
  const ready = (await first) as ServerProcess["ready"];
  return {
    pid: child.pid,
    ready,
    ask() {
      const reply = next();
      child.send("counters");
      return reply;
    },
    async [Symbol.asyncDispose]() {
      child.kill();
      await child.exited;
    },
  };
}

/** The sockets process `pid` holds open, and its files under `folder` (when given). */
export function openDescriptors(pid: number, folder?: string): { sockets: number; files: number } {
  let sockets = 0;
  let files = 0;
  for (const descriptor of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${descriptor}`);
    } catch {
      continue; // Closed between the listing and the look.
    }
    if (target.startsWith("socket:")) sockets++;
    else if (folder !== undefined && target.startsWith(folder)) files++;
  }
  return { sockets, files };
}
