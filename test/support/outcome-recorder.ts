import { middleware } from "corral";

/** A middleware whose cleanup pushes each request's `path outcome` onto `outcomes`. */
export function recordOutcomes(outcomes: string[]) {
  return middleware<{ path: string }>({
    before(ctx) {
      ctx.locals.path = ctx.request.path;
    },
    cleanup(ctx, outcome) {
      outcomes.push(`${ctx.locals.path} ${outcome}`);
    },
  });
}
