import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Subprocess } from "bun";

/** Debian installs each major version's binaries under /usr/lib/postgresql/<major>/bin. */
const debianRoot = "/usr/lib/postgresql";
/** The database the TechEmpower tables live in, as TechEmpower names it. */
export const postgresDatabaseName = "hello_world";
const superuser = "corral";
const startTimeoutMs = 20_000;
const stopTimeoutMs = 10_000;

/** A throwaway PostgreSQL server in a temporary data directory, stopped by PID. */
export interface PostgresServer extends AsyncDisposable {
  /** `postgres://corral@127.0.0.1:PORT/hello_world` */
  readonly url: string;
  readonly port: number;
  /** The postmaster's process id (changes after `restart()`), -1 while stopped. */
  readonly pid: number;
  /** Fast shutdown (SIGINT: open sessions are ended), as a database taken away would be. */
  stop(): Promise<void>;
  /** Starts the server again on the same port and data directory; waits until it answers. */
  restart(): Promise<void>;
}

/** Where this machine's PostgreSQL binaries are (the newest major version), or undefined. */
export function postgresBinDirectory(): string | undefined {
  if (!existsSync(debianRoot)) return undefined;
  const majors = readdirSync(debianRoot)
    .filter((name) => /^\d+$/.test(name) && existsSync(`${debianRoot}/${name}/bin/postgres`))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : `${debianRoot}/${majors[0]}/bin`;
}

/**
 * PostgreSQL refuses to run as root: as root, commands run as Debian's `postgres` user through
 * `setpriv`, which execs in place so that the spawned PID is the postmaster's own.
 */
function asUnprivileged(command: readonly string[]): string[] {
  if (process.getuid?.() !== 0) return [...command];
  return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", ...command];
}

function postgresUserIds(): { readonly uid: number; readonly gid: number } {
  const result = Bun.spawnSync(["id", "-u", "postgres"]);
  const group = Bun.spawnSync(["id", "-g", "postgres"]);
  if (result.exitCode !== 0 || group.exitCode !== 0) {
    throw new Error("running as root needs the `postgres` user (Debian's postgresql package)");
  }
  return { uid: Number(result.stdout.toString()), gid: Number(group.stdout.toString()) };
}

/** A port that was free a moment ago: bound on port 0, then released. */
function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

function initialise(bin: string, dataDirectory: string): void {
  const result = Bun.spawnSync(
    asUnprivileged([
      `${bin}/initdb`,
      "-D",
      dataDirectory,
      "-U",
      superuser,
      "--auth=trust",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
    ]),
    // The data directory is the one place the `postgres` user surely may enter (a clone under
    // /root may not be).
    { cwd: dataDirectory, stdout: "pipe", stderr: "pipe" },
  );
  if (result.exitCode !== 0) {
    throw new Error(`initdb failed:\n${result.stdout.toString()}${result.stderr.toString()}`);
  }
}

/** How the postmaster is started, the same on every restart. */
interface Launch {
  readonly bin: string;
  readonly dataDirectory: string;
  readonly maxConnections: number;
  /** `taskset -c N` or empty: taskset and setpriv both exec, so the PID stays the postmaster's. */
  readonly pinPrefix: readonly string[];
}

function spawnPostmaster(launch: Launch, port: number): Subprocess<"ignore", "pipe", "pipe"> {
  const { bin, dataDirectory, maxConnections } = launch;
  // Durability is not what is measured here: a throwaway cluster skips fsync, like TechEmpower's.
  return Bun.spawn(
    [
      ...launch.pinPrefix,
      ...asUnprivileged([
        `${bin}/postgres`,
        "-D",
        dataDirectory,
        "-p",
        String(port),
        "-h",
        "127.0.0.1",
        "-k",
        dataDirectory,
        "-c",
        `max_connections=${maxConnections}`,
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
      ]),
    ],
    { cwd: dataDirectory, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
}

/** Whether the server accepts a session on `database` now. */
async function answers(port: number, database: string): Promise<boolean> {
  const sql = new Bun.SQL({
    url: `postgres://${superuser}@127.0.0.1:${port}/${database}`,
    max: 1,
    connectionTimeout: 2,
  });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.close({ timeout: 0 });
  }
}

async function startOn(
  launch: Launch,
  port: number,
  database: string,
): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const child = spawnPostmaster(launch, port);
  const deadline = Date.now() + startTimeoutMs;
  while (!(await answers(port, database))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.exited;
      const output = await new Response(child.stderr).text();
      throw new Error(`postgres did not start on port ${port}:\n${output}`);
    }
    await Bun.sleep(50);
  }
  return child;
}

/** Options of `startPostgresServer`. */
export interface PostgresServerOptions {
  /** The server's `max_connections` (default 100). */
  readonly maxConnections?: number;
  /** Command prefix for the postmaster, e.g. `taskset -c 1` (empty by default). */
  readonly pinPrefix?: readonly string[];
}

/**
 * Starts Debian's PostgreSQL on a free port of 127.0.0.1 in a new temporary data directory
 * (trust authentication, no fsync), creates the database `hello_world`, and waits until it
 * answers. As root it runs as the `postgres` user.
 *
 * @example
 * await using postgres = await startPostgresServer();
 * const sql = new Bun.SQL(postgres.url);
 */
export async function startPostgresServer(
  options: PostgresServerOptions = {},
): Promise<PostgresServer> {
  const bin = postgresBinDirectory();
  if (bin === undefined) throw new Error(`no PostgreSQL under ${debianRoot}`);
  const maxConnections = options.maxConnections ?? 100;
  const dataDirectory = mkdtempSync(`${tmpdir()}/corral-postgres-`);
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUserIds();
    chownSync(dataDirectory, uid, gid);
  }
  const launch: Launch = {
    bin,
    dataDirectory,
    maxConnections,
    pinPrefix: options.pinPrefix ?? [],
  };
  const port = freePort();
  let child: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  try {
    initialise(bin, dataDirectory);
    child = await startOn(launch, port, "postgres");
    const admin = new Bun.SQL({
      url: `postgres://${superuser}@127.0.0.1:${port}/postgres`,
      max: 1,
    });
    await admin.unsafe(`CREATE DATABASE ${postgresDatabaseName}`);
    await admin.close();
  } catch (error) {
    child?.kill("SIGKILL");
    await child?.exited;
    rmSync(dataDirectory, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    if (child === undefined) return;
    const stopping = child;
    child = undefined;
    stopping.kill("SIGINT");
    const exited = await Promise.race([
      stopping.exited.then(() => true),
      Bun.sleep(stopTimeoutMs).then(() => false),
    ]);
    if (!exited) {
      stopping.kill("SIGKILL");
      await stopping.exited;
    }
  };
  return {
    url: `postgres://${superuser}@127.0.0.1:${port}/${postgresDatabaseName}`,
    port,
    get pid() {
      return child?.pid ?? -1;
    },
    stop,
    async restart() {
      await stop();
      child = await startOn(launch, port, postgresDatabaseName);
    },
    async [Symbol.asyncDispose]() {
      await stop();
      rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}
