import type { EngineStats } from "corral/engine";

/** What the supervisor sends a child over IPC. */
export type SupervisorMessage =
  | { readonly type: "stats"; readonly id: number }
  | { readonly type: "ping"; readonly id: number }
  | { readonly type: "stop"; readonly graceMs: number };

/** What a child sends the supervisor over IPC. */
export type ChildMessage =
  | {
      readonly type: "listening";
      readonly port: number;
      readonly budget: string;
      readonly reservedBytes: number;
    }
  | { readonly type: "stats"; readonly id: number; readonly stats: EngineStats }
  | { readonly type: "pong"; readonly id: number };

/** Environment variables the supervisor passes to each child. */
export const childEnvironment = {
  entry: "CORRAL_ENTRY",
  hostname: "CORRAL_HOSTNAME",
  port: "CORRAL_PORT",
} as const;
