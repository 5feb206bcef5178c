// `bun run example chat --port <port> [--processes <n>] [--redis redis://host:port]`: an echo
// WebSocket and chat rooms; with --redis, the rooms of every instance on that Redis are one.
import { prepareRedisArgument } from "../shared/redis-argument.ts";
import { serveExample } from "../shared/serve-example.ts";
import { createChatApp } from "./chat-app.ts";

/** Where the main process leaves `--redis` for the processes of `--processes N` (inherited). */
const redisUrlVariable = "CORRAL_CHAT_EXAMPLE_REDIS";

/** Makes the App; each process of `--processes N` makes its own, on the same Redis if any. */
export default function createApp() {
  return createChatApp({ redisUrl: process.env[redisUrlVariable] });
}

/** Takes `--redis URL` out of the command line for `createApp`; returns the rest. */
export function prepare(args: readonly string[]): readonly string[] {
  return prepareRedisArgument(args, "chat", redisUrlVariable);
}

if (import.meta.main) {
  await serveExample("chat", import.meta.path, createApp, prepare(process.argv.slice(2)));
}
