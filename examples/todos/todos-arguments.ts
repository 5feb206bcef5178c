/** The todos example's own options. */
export interface TodosArguments {
  readonly db?: string;
  readonly corsOrigin?: string;
  readonly rateLimit?: number;
}

const usage =
  "usage: bun run example todos --port <0-65535> [--db FILE] [--cors-origin ORIGIN] [--rate-limit N]";

/** Takes `--db`, `--cors-origin` and `--rate-limit` out of `args`; a usage error text if bad. */
export function takeTodosArguments(
  args: readonly string[],
): { readonly options: TodosArguments; readonly rest: readonly string[] } | string {
  const rest: string[] = [];
  const options: { db?: string; corsOrigin?: string; rateLimit?: number } = {};
  for (let index = 0; index < args.length; index++) {
    const argument = args[index]!;
    const value = () => args[++index] ?? "";
    if (argument === "--db") options.db = value();
    else if (argument === "--cors-origin") options.corsOrigin = value();
    else if (argument === "--rate-limit") {
      const text = value();
      const limit = /^\d{1,9}$/.test(text) ? Number(text) : 0;
      if (limit < 1)
        return `invalid --rate-limit ${JSON.stringify(text)}: expected a whole number >= 1\n${usage}`;
      options.rateLimit = limit;
    } else rest.push(argument);
  }
  if (options.db === "") return `--db needs a file name\n${usage}`;
  if (options.corsOrigin !== undefined) {
    let origin: string | undefined;
    try {
      origin = new URL(options.corsOrigin).origin;
    } catch {}
    if (origin !== options.corsOrigin) {
      return `invalid --cors-origin ${JSON.stringify(options.corsOrigin)}: expected an origin like https://app.example\n${usage}`;
    }
  }
  return { options, rest };
}
