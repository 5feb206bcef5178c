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
