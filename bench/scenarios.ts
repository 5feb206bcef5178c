import { bigBodyBytes, bigPath, helloText } from "./servers/payloads.ts";

/** The two servers compared in every scenario. */
export type ServerKind = "corral-engine" | "bun-serve";
export const serverKinds: readonly ServerKind[] = ["corral-engine", "bun-serve"];
export const serverLabels: Readonly<Record<ServerKind, string>> = {
  "corral-engine": "corral-engine",
  "bun-serve": "Bun.serve",
};

export type ScenarioId = "plain" | "pipelined" | "big";

/** One load shape, run against each server. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  readonly path: string;
  readonly connections: number;
  /** Requests per write (1: plain keep-alive). */
  readonly pipelineDepth: number;
  /** Server script for each kind, relative to bench/servers. */
  readonly scripts: Readonly<Record<ServerKind, string>>;
  /** What one response must look like before load is sent. */
  readonly expected: {
    readonly contentType: string;
    readonly bodyLength: number;
    readonly bodyText?: string;
  };
}

const hello = {
  path: "/",
  scripts: { "corral-engine": "corral-engine-hello.ts", "bun-serve": "bun-serve-hello.ts" },
  expected: { contentType: "text/plain", bodyLength: helloText.length, bodyText: helloText },
} as const;

export const scenarios: readonly Scenario[] = [
  {
    id: "plain",
    title: "hello, keep-alive, 64 conns",
    connections: 64,
    pipelineDepth: 1,
    ...hello,
  },
  {
    id: "pipelined",
    title: "hello, 16-deep pipelined, 64 conns",
    connections: 64,
    pipelineDepth: 16,
    ...hello,
  },
  {
    id: "big",
    title: "5 MiB body, 8 conns",
    path: bigPath,
    connections: 8,
    pipelineDepth: 1,
    scripts: { "corral-engine": "corral-engine-big.ts", "bun-serve": "bun-serve-big.ts" },
    expected: { contentType: "application/octet-stream", bodyLength: bigBodyBytes },
  },
];

/** The hello scenario the corral RSS check loads for longer. */
export const rssCheckScenario: Scenario = scenarios[0]!;
