import type { App } from "../app.ts";

/** What an entry module's default export may be: an App, or a function that makes one. */
// biome-ignore lint/suspicious/noExplicitAny: the entry's App may have any shared state.
export type EntryExport = App<any, any> | (() => App<any, any> | Promise<App<any, any>>);

/**
 * Loads the App of an entry module. The contract: the module's default export is an `App`, or a
 * function (sync or async) returning one, called once per process. The module must not listen
 * itself; each process of the group calls `listen` on what it exports.
 */
// biome-ignore lint/suspicious/noExplicitAny: the entry's App may have any shared state.
export async function loadEntryApp(entryPath: string): Promise<App<any, any>> {
  const module = (await import(entryPath)) as { default?: unknown };
  const exported = module.default;
  const app = typeof exported === "function" ? await exported() : exported;
  // Checked by shape, not instanceof: the entry may load corral from another path (dist/ or src/).
  if (!isApp(app)) {
    throw new TypeError(
      `corral: ${entryPath} must export default an App or a function returning one, got ${describe(app)}`,
    );
  }
  return app;
}

// biome-ignore lint/suspicious/noExplicitAny: the entry's App may have any shared state.
function isApp(value: unknown): value is App<any, any> {
  const candidate = value as Partial<Record<"listen" | "stop" | "stats", unknown>> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.listen === "function" &&
    typeof candidate.stop === "function" &&
    typeof candidate.stats === "function"
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
