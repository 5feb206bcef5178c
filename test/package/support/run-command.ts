/** What a finished command printed. */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` in `cwd` to its end and returns its exit code and output. */
export async function runCommand(
  command: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CommandResult> {
  const child = Bun.spawn([...command], {
    cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...env },
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/** Runs `command` like `runCommand` and throws with everything it printed if it fails. */
export async function mustRun(
  command: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  const result = await runCommand(command, cwd, env);
  if (result.exitCode !== 0) {
    throw new Error(
      `\`${command.join(" ")}\` in ${cwd} exited with ${result.exitCode}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}
