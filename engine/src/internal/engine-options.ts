import { requestsPerYoungCollection } from "./young-collection.ts";

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
