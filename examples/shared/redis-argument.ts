import { RedisConnection } from "corral";

/** The arguments with `--redis URL` (or `--redis=URL`) taken out, and the URL if it was given. */
export interface RedisArgument {
  readonly redisUrl: string | undefined;
  readonly rest: readonly string[];
}

/**
 * Takes `--redis redis://host:port` out of `args` (the rest go on to the port parser); returns
 * a usage error text when the URL is missing or not a redis:// or rediss:// URL.
 */
export function takeRedisArgument(args: readonly string[], name: string): RedisArgument | string {
  const usage = `usage: bun run example ${name} --port <0-65535> [--redis redis://host:port]`;
  const rest: string[] = [];
  let redisUrl: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    if (argument === "--redis") redisUrl = args[++index] ?? "";
    else if (argument.startsWith("--redis=")) redisUrl = argument.slice("--redis=".length);
    else rest.push(argument);
  }
  if (redisUrl !== undefined && !/^rediss?:\/\/./.test(redisUrl)) {
    return `invalid --redis ${JSON.stringify(redisUrl)}: expected redis://host:port\n${usage}`;
  }
  return { redisUrl, rest };
}

/**
 * Connects to Redis for an example, or prints one error line and exits 1 when it cannot be
 * reached at start.
 */
export async function openRedisOrExit(name: string, url: string): Promise<RedisConnection> {
  try {
    return await RedisConnection.open({ url });
  } catch (error) {
    const detail = error instanceof Error ? String(error.cause ?? error.message) : String(error);
    console.error(`corral ${name}: ${detail}`);
    process.exit(1);
  }
}

/**
 * An example's `prepare`: takes `--redis URL` out of `args` and leaves it in the environment
 * variable `variable`, where `createApp` finds it in this process and in the processes of
 * `--processes N` (which inherit it); returns the rest for `serveExample`. A bad option is one
 * line and exit status 2.
 */
export function prepareRedisArgument(
  args: readonly string[],
  name: string,
  variable: string,
): readonly string[] {
  const parsed = takeRedisArgument(args, name);
  if (typeof parsed === "string") {
    console.error(parsed);
    process.exit(2);
  }
  if (parsed.redisUrl !== undefined) process.env[variable] = parsed.redisUrl;
  return parsed.rest;
}
