// The Bun.serve group of the `cores` scenario: `--processes N` processes of Bun.serve answering
// "Hello, World!" (as bun-serve-hello.ts), each with `reusePort: true` on one port. This process
// starts them (the first on `--port`, the others on the port it got), prints `PIDS [..]` and
// `READY <port>`, and on SIGTERM stops them. Run with `--child` it is one of them.
import { announceReady, parsePort } from "./cli.ts";
import { helloText } from "./payloads.ts";
import { parseProcesses } from "./processes-argument.ts";

if (Bun.argv.includes("--child")) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: parsePort(),
    reusePort: true,
    development: false,
    fetch() {
      return new Response(helloText, { headers: { "Content-Type": "text/plain" } });
    },
  });
  announceReady(server.port ?? 0);
} else {
  const children: Bun.Subprocess<"ignore", "pipe", "inherit">[] = [];
  // The child's stdout stays open while it runs: read its first line only.
  const readyPort = async (child: (typeof children)[number]): Promise<number> => {
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return Number(/READY (\d+)/.exec(text)?.[1] ?? Number.NaN);
  };
  const spawnChild = (port: number) => {
    const child = Bun.spawn(
      [process.execPath, import.meta.path, "--child", "--port", String(port)],
      {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "inherit",
      },
    );
    children.push(child);
    return readyPort(child);
  };
  const port = await spawnChild(parsePort());
  const processes = parseProcesses();
  await Promise.all(Array.from({ length: processes - 1 }, () => spawnChild(port)));
  process.on("SIGTERM", async () => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((child) => child.exited));
    process.exit(0);
  });
  console.log(`PIDS ${JSON.stringify(children.map((child) => child.pid))}`);
  announceReady(port);
}
