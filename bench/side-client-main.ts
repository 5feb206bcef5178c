// The abuse scenario's side client in its own process, so that its latencies do not include
// this orchestrator's work for the attackers (thousands of sockets on one event loop).
// Usage: bun bench/side-client-main.ts PORT PERIOD_MS GRACE_MS REQUEST_BASE64
// Prints `STARTED`, sends a request every PERIOD_MS until a `stop` line (or the end of stdin),
// waits up to GRACE_MS for the answers still due, then prints `RESULT {...}` (a SideResult).
import { SideClient } from "./side-client.ts";

const [port, periodMs, graceMs] = Bun.argv.slice(2, 5).map(Number);
const request = Buffer.from(Bun.argv[5] ?? "", "base64");
if (!Number.isInteger(port) || !(periodMs! > 0) || !(graceMs! >= 0) || request.length === 0) {
  console.error("usage: bun bench/side-client-main.ts PORT PERIOD_MS GRACE_MS REQUEST_BASE64");
  process.exit(2);
}
const client = new SideClient(port!, request, periodMs);
client.start();
console.log("STARTED");
for await (const line of console) {
  if (line.trim() === "stop") break;
}
const result = await client.finish(graceMs!);
console.log(`RESULT ${JSON.stringify(result)}`);
process.exit(0);
