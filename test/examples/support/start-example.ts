import type { Subprocess } from "bun";

const root = `${import.meta.dir}/../../..`;

/** A running example subprocess, stopped with SIGTERM by `await using`. */
export interface RunningExample extends AsyncDisposable {
  readonly child: Subprocess<"ignore", "pipe", "pipe">;
  /** `http://127.0.0.1:PORT/` */
  readonly baseUrl: string;
  readonly port: number;
  /** Everything the example printed before it was ready (the budget line, the URL line). */
  readonly startupOutput: string;
}

/**
 * Starts `bun run example NAME --port 0` (or any command printing "listening on URL") and waits
 * for the URL it prints. Fails with the output when it exits first or takes over 10 s.
 */
export async function startExample(
  name: string,
  command: readonly string[] = ["bun", "run", "example", name, "--port", "0"],
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {},
): Promise<RunningExample> {
  const child = Bun.spawn([...command], {
    cwd: options.cwd ?? root,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...options.env },
  });
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 10_000;
  let match: RegExpExecArray | null = null;
  while (match === null) {
    if (Date.now() > deadline) break;
    const read = await Promise.race([
      reader.read(),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => undefined),
    ]);
    if (read === undefined || read.done) break;
    output += new TextDecoder().decode(read.value);
    match = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(output);
  }
  reader.releaseLock();
  if (match === null) {
    child.kill("SIGKILL");
    const errors = await new Response(child.stderr).text();
    throw new Error(`example ${name} did not start:\n${output}\n${errors}`);
  }
  return {
    child,
    baseUrl: match[1]!,
    port: Number(match[2]),
    startupOutput: output,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}
