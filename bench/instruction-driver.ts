// Runs inside valgrind for bench/instructions.ts: loads a corral bench server with `Bun.listen`
// replaced by a capture, then feeds its socket handlers one fake socket's requests directly, so
// no kernel, event-loop wake-up or other process is in the count. Environment: SERVER (a script
// of bench/servers that listens through corral), TARGET (the request target), PIPELINE (requests
// per chunk), WARM_TURNS (chunks before counting), TURNS (chunks counted). Callgrind counts only
// between the two `callgrind_control -i` calls; what those calls cost is the same for every
// TURNS, so the orchestrator's difference of two runs cancels it. FLUSH_JIT_DUMP=1 (for
// `--functions`) lets JavaScriptCore finish writing its JITDump before exiting.

export {};

interface SocketHandlers {
  open(socket: unknown): void;
  data(socket: unknown, chunk: Uint8Array): void;
}

const pipeline = Number(process.env.PIPELINE ?? 16);
const warmTurns = Number(process.env.WARM_TURNS ?? 6000);
const turns = Number(process.env.TURNS ?? 100);
const target = process.env.TARGET ?? "/";
const server = process.env.SERVER;
if (server === undefined) throw new Error("instruction-driver: SERVER is missing");

let handlers: SocketHandlers | null = null;
const capture = (options: { socket: SocketHandlers }) => {
  handlers = options.socket;
  return { port: 1, hostname: "127.0.0.1", stop() {}, ref() {}, unref() {} };
};
(Bun as unknown as { listen: typeof capture }).listen = capture;
process.argv.push("--port", "1");
const print = console.log;
// The server's own lines (READY, INFO) are not this run's output.
console.log = () => {};
await import(server);
console.log = print;
if (handlers === null) throw new Error(`instruction-driver: ${server} did not call Bun.listen`);
const socketHandlers: SocketHandlers = handlers;

let writes = 0;
let bytesWritten = 0;

/**
 * A fake socket of Bun's shape; `closed` once the engine ended it. Its methods are on the
 * prototype, as a Bun socket's are: a call site that meets several sockets then calls one
 * function, not one closure per socket.
 */
class FakeSocket {
  data = -1;
  closed = false;
  /** Whether the engine paused reading: Bun delivers no data then, and neither does `feed`. */
  paused = false;
  readonly remoteAddress = "127.0.0.1";
  readonly remoteFamily = "IPv4";
  readonly remotePort = 40000;

  write(data: Uint8Array, offset = 0, length = data.length - offset): number {
    if (this.closed) return -1;
    writes++;
    bytesWritten += length;
    return length;
  }
  end(): void {
    this.closed = true;
  }
  terminate(): void {
    this.closed = true;
  }
  shutdown(): void {}
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  setNoDelay(): void {}
}

function openSocket(): FakeSocket {
  const socket = new FakeSocket();
  socketHandlers.open(socket);
  return socket;
}

let socket = openSocket();
// With BROWSER_HEADERS=1, each request carries the fields a browser sends for a page (about 600
// bytes of head, where wrk's requests carry only Host).
const browserFields =
  "Connection: keep-alive\r\n" +
  'sec-ch-ua: "Chromium";v="156", "Not)A;Brand";v="24"\r\n' +
  "sec-ch-ua-mobile: ?0\r\n" +
  'sec-ch-ua-platform: "Linux"\r\n' +
  "Upgrade-Insecure-Requests: 1\r\n" +
  "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36\r\n" +
  "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n" +
  "Sec-Fetch-Site: none\r\n" +
  "Sec-Fetch-Mode: navigate\r\n" +
  "Sec-Fetch-User: ?1\r\n" +
  "Sec-Fetch-Dest: document\r\n" +
  "Accept-Encoding: gzip, deflate, br, zstd\r\n" +
  "Accept-Language: en-US,en;q=0.9\r\n";
const fields = process.env.BROWSER_HEADERS === "1" ? browserFields : "";
const chunk = Buffer.from(
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields}\r\n`.repeat(pipeline),
  "latin1",
);

/**
 * `count` chunks, each a fresh array as Bun's socket gives, one event-loop turn apart, and none
 * while the engine has reading paused (an asynchronous handler still answering the last chunk):
 * fed regardless, the chunks would pile up in the engine's input as no real client's could.
 */
async function feed(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) {
    for (let waits = 0; socket.paused; waits++) {
      if (waits === 100_000) throw new Error("instruction-driver: reading stays paused");
      await null;
    }
    socketHandlers.data(socket, new Uint8Array(chunk));
    await null;
  }
}

async function instrumentation(state: "on" | "off"): Promise<void> {
  // Asynchronously: valgrind takes the command only while this process runs.
  const control = Bun.spawn(["callgrind_control", "-i", state, String(process.pid)], {
    stdout: "ignore",
    stderr: "ignore",
  });
  await control.exited;
}

// Half the warm-up on a second connection while the first stays open and idle, as the counted
// one below will be beside these: the state of a server with idle connections (one in the idle
// queue when another goes idle, say) is then one the JIT has seen. Warmed on one connection
// only, the counted one met branches never taken before, and the code around them left the
// optimizing tier (JavaScriptCore's "inadequate coverage" exits) for the whole count.
await feed(Math.ceil(warmTurns / 2));
socket = openSocket();
await feed(Math.floor(warmTurns / 2));
await instrumentation("on");
// A fresh connection: under valgrind, switching the count on can take longer than the engine
// lets a keep-alive connection idle, and a closed one would answer nothing. Opening it costs
// the same in both runs, so the difference cancels it.
socket = openSocket();
writes = 0;
bytesWritten = 0;
const started = performance.now();
await feed(turns);
const nanoseconds = (performance.now() - started) * 1e6;
const closedEarly = socket.closed;
await instrumentation("off");
if (closedEarly)
  throw new Error("instruction-driver: the engine closed the connection while counting");
// JavaScriptCore writes its JITDump from a thread of its own, which valgrind runs only while
// this one waits: exiting at once lost the records of the functions compiled last (often the
// hottest, tiered up last), so that most JIT code could not be named. Not counted.
if (process.env.FLUSH_JIT_DUMP === "1") await Bun.sleep(500);
print(
  `RESULT ${JSON.stringify({ requests: turns * pipeline, writes, bytesWritten, nanosecondsPerRequest: Math.round(nanoseconds / (turns * pipeline)) })}`,
);
process.exit(0);
