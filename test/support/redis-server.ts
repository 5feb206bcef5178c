import type { Subprocess } from "bun";

const redisServerPath = "/usr/bin/redis-server";

/** A throwaway `redis-server` with no persistence, stopped by PID through `await using`. */
export interface RedisServer extends AsyncDisposable {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** The running server's process id (changes after `restart()`). */
  readonly pid: number;
  /** Kills the server at once (SIGKILL), as a crash would, and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts a fresh, empty server on the same port and waits until it answers PING. */
  restart(): Promise<void>;
}

/** A port that was free a moment ago: bound on port 0, then released. */
function freePort(): number {
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: { data() {} },
  });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/** Whether a server answers `PING` with `+PONG` on `port` right now. */
async function answersPing(port: number): Promise<boolean> {
  const { promise, resolve } = Promise.withResolvers<boolean>();
  let received = "";
  try {
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write("PING\r\n");
        },
        data(socket, bytes) {
          received += bytes.toString();
          if (received.includes("\r\n")) {
            resolve(received.startsWith("+PONG"));
            socket.end();
          }
        },
        close() {
          resolve(false);
        },
        error() {
          resolve(false);
        },
      },
    });
    const answered = await promise;
    socket.end();
    return answered;
  } catch {
    return false;
  }
}

function spawnServer(port: number): Subprocess<"ignore", "pipe", "pipe"> {
  return Bun.spawn(
    [
      redisServerPath,
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
}

/** Spawns a server on `port` and waits until it answers PING; fails with its output if it exits. */
async function startOn(port: number): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const child = spawnServer(port);
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.exited;
      const output = await new Response(child.stdout).text();
      throw new Error(`redis-server did not start on port ${port}:\n${output}`);
    }
    await Bun.sleep(10);
  }
  return child;
}

/**
 * Starts Debian's `redis-server` on a free port of 127.0.0.1 with no persistence (`--save ""`,
 * `--appendonly no`) and waits until it answers PING.
 *
 * @example
 * await using redis = await startRedisServer();
 * const client = new RedisClient(redis.url);
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = freePort();
  let child: Subprocess<"ignore", "pipe", "pipe"> | undefined = await startOn(port);
  const kill = async () => {
    if (child === undefined) return;
    child.kill("SIGKILL");
    await child.exited;
    child = undefined;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    kill,
    async restart() {
      await kill();
      child = await startOn(port);
    },
    async [Symbol.asyncDispose]() {
      await kill();
    },
  };
}
