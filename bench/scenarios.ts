import {
  bigBodyBytes,
  bigPath,
  helloText,
  jsonBody,
  jsonPath,
  nameContentType,
  nameQueryValue,
  nameTarget,
} from "./servers/payloads.ts";

/** Every server the bench knows; each scenario runs some of them. */
export type ServerKind =
  | "corral-engine"
  | "bun-serve"
  | "corral-app"
  | "corral-compress"
  | "hono"
  | "elysia"
  | "listen-floor";
export const serverLabels: Readonly<Record<ServerKind, string>> = {
  "corral-engine": "corral-engine",
  "bun-serve": "Bun.serve",
  "corral-app": "corral App",
  "corral-compress": "corral App + compress",
  hono: "Hono",
  elysia: "Elysia",
  "listen-floor": "Bun.listen floor",
};

export type ScenarioId = "plain" | "pipelined" | "big" | "app-plain" | "app-pipelined" | "compress";

/** One server of a scenario: what it is and its script, relative to bench/servers. */
export interface ScenarioServer {
  readonly kind: ServerKind;
  readonly label: string;
  readonly script: string;
}

/** A ratio row of the table: `numerator` / `denominator`, metric by metric. */
export interface RatioRow {
  readonly label: string;
  readonly numerator: ServerKind;
  readonly denominator: ServerKind;
}

/** One wrk load shape, run against each of its servers. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Path and query wrk requests. */
  readonly path: string;
  readonly connections: number;
  /** Requests per write (1: plain keep-alive). */
  readonly pipelineDepth: number;
  /** Extra request header lines wrk sends (`Name: value`). */
  readonly requestHeaders?: readonly string[];
  /** Whether the server should be busy all the run (hello loads; not the 5 MiB body). */
  readonly serverBound: boolean;
  readonly servers: readonly ScenarioServer[];
  readonly ratios: readonly RatioRow[];
  /** What one response must look like before load is sent. */
  readonly expected: {
    /** Compared as a media type: case and spaces around `;` do not matter. */
    readonly contentType: string;
    readonly bodyLength: number;
    readonly bodyText?: string;
  };
}

const engineServers = (corral: string, bun: string): readonly ScenarioServer[] => [
  { kind: "corral-engine", label: serverLabels["corral-engine"], script: corral },
  { kind: "bun-serve", label: serverLabels["bun-serve"], script: bun },
];
const engineRatios: readonly RatioRow[] = [
  { label: "ratio corral/Bun", numerator: "corral-engine", denominator: "bun-serve" },
];

const hello = {
  path: "/",
  serverBound: true,
  servers: engineServers("corral-engine-hello.ts", "bun-serve-hello.ts"),
  ratios: engineRatios,
  expected: { contentType: "text/plain", bodyLength: helloText.length, bodyText: helloText },
} as const;

/** The App pipeline against the bare engine, Bun.serve, Hono and Elysia doing the same work. */
const appHello = {
  path: nameTarget,
  serverBound: true,
  servers: [
    { kind: "corral-app", label: serverLabels["corral-app"], script: "corral-app-hello.ts" },
    {
      kind: "corral-engine",
      label: "corral-engine bare",
      script: "corral-engine-hello-query.ts",
    },
    { kind: "bun-serve", label: serverLabels["bun-serve"], script: "bun-serve-hello-query.ts" },
    { kind: "hono", label: serverLabels.hono, script: "hono-hello.ts" },
    { kind: "elysia", label: serverLabels.elysia, script: "elysia-hello.ts" },
    {
      kind: "listen-floor",
      label: serverLabels["listen-floor"],
      script: "listen-floor-hello-query.ts",
    },
  ],
  ratios: [
    { label: "App / engine bare", numerator: "corral-app", denominator: "corral-engine" },
    { label: "App / Bun.serve", numerator: "corral-app", denominator: "bun-serve" },
    { label: "App / Hono", numerator: "corral-app", denominator: "hono" },
    { label: "App / Elysia", numerator: "corral-app", denominator: "elysia" },
    // The ceiling: how far above Bun.serve anything on Bun.listen can get on this machine.
    { label: "floor / Bun.serve", numerator: "listen-floor", denominator: "bun-serve" },
    { label: "App / floor", numerator: "corral-app", denominator: "listen-floor" },
  ],
  expected: {
    contentType: nameContentType,
    bodyLength: nameQueryValue.length,
    bodyText: nameQueryValue,
  },
} as const satisfies Partial<Scenario>;

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
    serverBound: false,
    servers: engineServers("corral-engine-big.ts", "bun-serve-big.ts"),
    ratios: engineRatios,
    expected: { contentType: "application/octet-stream", bodyLength: bigBodyBytes },
  },
  {
    id: "app-plain",
    title: "GET /hello?name=world, keep-alive, 64 conns",
    connections: 64,
    pipelineDepth: 1,
    ...appHello,
  },
  {
    id: "app-pipelined",
    title: "GET /hello?name=world, 16-deep pipelined, 64 conns",
    connections: 64,
    pipelineDepth: 16,
    ...appHello,
  },
  {
    // The cost of compress(): 16 KiB of JSON per answer, to a client that takes every coding as
    // browsers do (zstd chosen), beside the same App without it and Bun.serve sending it as is.
    id: "compress",
    title: "GET /todos.json (16 KiB JSON), Accept-Encoding: gzip, deflate, br, zstd, 64 conns",
    path: jsonPath,
    connections: 64,
    pipelineDepth: 1,
    requestHeaders: ["Accept-Encoding: gzip, deflate, br, zstd"],
    serverBound: true,
    servers: [
      {
        kind: "corral-compress",
        label: serverLabels["corral-compress"],
        script: "corral-json-compress.ts",
      },
      { kind: "corral-app", label: serverLabels["corral-app"], script: "corral-json.ts" },
      { kind: "bun-serve", label: serverLabels["bun-serve"], script: "bun-serve-json.ts" },
    ],
    ratios: [
      { label: "compress / identity", numerator: "corral-compress", denominator: "corral-app" },
      { label: "compress / Bun.serve", numerator: "corral-compress", denominator: "bun-serve" },
      { label: "App / Bun.serve", numerator: "corral-app", denominator: "bun-serve" },
    ],
    expected: { contentType: "application/json", bodyLength: jsonBody.length },
  },
];

/** The hello scenario the corral RSS check loads for longer. */
export const rssCheckScenario: Scenario = scenarios[0]!;

/**
 * What `--only` can name: a wrk scenario, the RSS check, the SSE, Redis SSE, abuse, cores, upload
 * or TechEmpower scenario.
 */
export type SectionId =
  | ScenarioId
  | "rss"
  | "sse"
  | "redis-sse"
  | "abuse"
  | "cores"
  | "upload"
  | "static"
  | "techempower";
export const sectionIds: readonly SectionId[] = [
  "plain",
  "pipelined",
  "big",
  "rss",
  "app-plain",
  "app-pipelined",
  "sse",
  "redis-sse",
  "abuse",
  "cores",
  "upload",
  "compress",
  "static",
  "techempower",
];
/** Names for several sections at once. */
export const sectionGroups: Readonly<Record<string, readonly SectionId[]>> = {
  engine: ["plain", "pipelined", "big", "rss"],
  app: ["app-plain", "app-pipelined"],
};
