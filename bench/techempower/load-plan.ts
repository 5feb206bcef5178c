/** The servers of the TechEmpower comparison, each a script in bench/servers. */
export type TechEmpowerServer = "corral" | "bun-serve" | "hono" | "elysia";
export const techEmpowerServers: ReadonlyArray<{
  readonly kind: TechEmpowerServer;
  readonly label: string;
  readonly script: string;
}> = [
  { kind: "corral", label: "corral App", script: "techempower-corral.ts" },
  { kind: "bun-serve", label: "Bun.serve", script: "techempower-bun-serve.ts" },
  { kind: "hono", label: "Hono", script: "techempower-hono.ts" },
  { kind: "elysia", label: "Elysia", script: "techempower-elysia.ts" },
];

export type TestType = "json" | "plaintext" | "db" | "queries" | "fortunes" | "updates";
export type DatabaseChoice = "sqlite" | "postgres";

/** One wrk load of the comparison. */
export interface TechEmpowerLoad {
  /** Row name: test and connections, e.g. `db c256`. */
  readonly id: string;
  readonly test: TestType;
  readonly path: string;
  readonly connections: number;
  readonly pipelineDepth: number;
  /** json and plaintext touch no database: they run once, in the SQLite pass. */
  readonly databases: readonly DatabaseChoice[];
}

const both: readonly DatabaseChoice[] = ["sqlite", "postgres"];
const noDatabase: readonly DatabaseChoice[] = ["sqlite"];

/**
 * TechEmpower's loads scaled to a 2-core machine: json, db and fortunes at 64 and 256
 * connections; queries and updates with 20 rows per request at 64 connections; plaintext
 * pipelined 16 deep on 256 connections.
 */
export const techEmpowerLoads: readonly TechEmpowerLoad[] = [
  {
    id: "json c64",
    test: "json",
    path: "/json",
    connections: 64,
    pipelineDepth: 1,
    databases: noDatabase,
  },
  {
    id: "json c256",
    test: "json",
    path: "/json",
    connections: 256,
    pipelineDepth: 1,
    databases: noDatabase,
  },
  {
    id: "plaintext c256 p16",
    test: "plaintext",
    path: "/plaintext",
    connections: 256,
    pipelineDepth: 16,
    databases: noDatabase,
  },
  { id: "db c64", test: "db", path: "/db", connections: 64, pipelineDepth: 1, databases: both },
  { id: "db c256", test: "db", path: "/db", connections: 256, pipelineDepth: 1, databases: both },
  {
    id: "fortunes c64",
    test: "fortunes",
    path: "/fortunes",
    connections: 64,
    pipelineDepth: 1,
    databases: both,
  },
  {
    id: "fortunes c256",
    test: "fortunes",
    path: "/fortunes",
    connections: 256,
    pipelineDepth: 1,
    databases: both,
  },
  {
    id: "queries=20 c64",
    test: "queries",
    path: "/queries?queries=20",
    connections: 64,
    pipelineDepth: 1,
    databases: both,
  },
  {
    id: "updates=20 c64",
    test: "updates",
    path: "/updates?queries=20",
    connections: 64,
    pipelineDepth: 1,
    databases: both,
  },
];

/** The goals for corral's App, in requests per server CPU-second, by test and peer. */
export function goalFor(test: TestType, peer: Exclude<TechEmpowerServer, "corral">): number {
  if (test === "json" || test === "plaintext") return peer === "bun-serve" ? 1.3 : 1.4;
  if (test === "db" || test === "fortunes") return peer === "bun-serve" ? 1.15 : 1.25;
  return 1.05;
}
