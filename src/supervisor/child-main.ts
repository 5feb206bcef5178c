// One process of a group started by `serve()`: loads the entry's App, listens with reusePort on
// the group's port, answers the supervisor over IPC, and stops gracefully when told, on a signal
// (Ctrl-C reaches the whole process group) or when the supervisor is gone.
import { reservedBytes } from "corral/engine";
import { loadEntryApp } from "./entry-module.ts";
import { type ChildMessage, childEnvironment, type SupervisorMessage } from "./messages.ts";

const send = (message: ChildMessage) => process.send?.(message);
const entry = process.env[childEnvironment.entry];
if (entry === undefined || process.send === undefined) {
  console.error("corral: child-main runs only under the supervisor (serve or the corral command)");
  process.exit(2);
}

const app = await loadEntryApp(entry);
const server = app.listen({
  hostname: process.env[childEnvironment.hostname] ?? "127.0.0.1",
  port: Number(process.env[childEnvironment.port] ?? "0"),
  reusePort: true,
  log: null,
});

let stopping = false;
function stop(graceMs: number): void {
  if (stopping) return;
  stopping = true;
  app.stop({ graceMs }).then(() => process.exit(0));
}

process.on("message", (message: SupervisorMessage) => {
  // A ping is answered at once: a reply that does not come tells the supervisor the loop is stuck.
  if (message.type === "ping") send({ type: "pong", id: message.id });
  else if (message.type === "stats") send({ type: "stats", id: message.id, stats: app.stats() });
  else if (message.type === "stop") stop(message.graceMs);
});
process.on("disconnect", () => stop(5000));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(5000));

send({
  type: "listening",
  port: server.port,
  budget: server.budget,
  reservedBytes: reservedBytes(app.limits),
});
