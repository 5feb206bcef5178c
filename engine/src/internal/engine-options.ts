import type { BindOptions, EngineOptions } from "../server-types.ts";
import { requestsPerYoungCollection } from "./young-collection.ts";

// Records, not lists, so that the compiler says when an option is added and not named here.
const engineOptionNames: Readonly<Record<keyof EngineOptions, true>> = {
  handler: true,
  limits: true,
  streamBodies: true,
  dispatchKey: true,
  dispatchOversizedBodies: true,
  requestCollectionWeight: true,
  log: true,
  onInternalError: true,
};
const bindOptionNames: Readonly<Record<keyof BindOptions, true>> = {
  hostname: true,
  port: true,
  reusePort: true,
};

/**
 * Refuses an option none of `known` names: a misspelt one (`reuseport`, `maxConnections` beside
 * `limits` instead of in it) would otherwise be ignored without a word, and what it was meant to
 * set left at its default.
 */
export function refuseUnknownOptions(
  options: object,
  call: "createEngine()" | "listen()" | "engine.listen()" | "stop()",
): void {
  const known =
    call === "stop()"
      ? ["graceMs"]
      : [
          ...(call === "engine.listen()" ? [] : Object.keys(engineOptionNames)),
          ...(call === "createEngine()" ? [] : Object.keys(bindOptionNames)),
        ];
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new TypeError(
        `corral: ${call} has no option "${name}" (its options: ${known.join(", ")})`,
      );
    }
  }
}

/** The options `createEngine` checks here (its `EngineOptions`, seen from below). */
interface CheckedOptions {
  readonly handler: unknown;
  readonly streamBodies?: unknown;
  readonly dispatchKey?: unknown;
  readonly requestCollectionWeight?: number;
  readonly onInternalError?: unknown;
}

/**
 * Refuses engine options of the wrong kind with a TypeError naming the option; returns the
 * request collection weight (1 when not given).
 */
export function validateEngineOptions(options: CheckedOptions): number {
  if (typeof options.handler !== "function") {
    throw new TypeError("corral: handler must be a function");
  }
  for (const name of ["streamBodies", "dispatchKey"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`corral: ${name} must be a function`);
    }
  }
  const onInternalError = options.onInternalError;
  if (onInternalError != null && typeof onInternalError !== "function") {
    throw new TypeError("corral: onInternalError must be a function or null");
  }
  const requestWeight = options.requestCollectionWeight ?? 1;
  if (
    !Number.isInteger(requestWeight) ||
    requestWeight < 1 ||
    requestWeight > requestsPerYoungCollection
  ) {
    throw new TypeError(
      "corral: requestCollectionWeight must be an integer from 1 to " +
        `${requestsPerYoungCollection}, got ${String(requestWeight)}`,
    );
  }
  return requestWeight;
}
