import { expect, test } from "bun:test";
import {
  type AnyContext,
  App,
  type ContextFor,
  type HandlerFor,
  HttpError,
  middleware,
} from "corral";

const app = new App({ shared: { prefix: "todo" } }).use(
  middleware<{ user: string }>({
    before(ctx) {
      ctx.locals.user = "ada";
    },
  }),
);

// Written apart from its route, typed from the App and the path: no Context<any, any, any>.
const getTodo: HandlerFor<typeof app, "/todos/:id"> = (ctx) => {
  const id: string = ctx.params.id;
  const user: string = ctx.locals.user;
  const prefix: string = ctx.shared.prefix;
  // @ts-expect-error: the path captures id only
  void ctx.params.other;
  ctx.response.text(200, `${prefix} ${id} of ${user} (${describe(ctx)})`);
};

function describe(ctx: AnyContext): string {
  return `${ctx.request.method} ${ctx.request.path}`;
}

function idOf(ctx: ContextFor<typeof app, "/todos/:id">): number {
  const id = Number(ctx.params.id);
  if (!Number.isSafeInteger(id)) throw new HttpError(404, "no such todo");
  return id;
}

app.get("/todos/:id", getTodo);
app.delete("/todos/:id", (ctx) => ctx.response.text(200, `deleted ${idOf(ctx)}`));

test("HandlerFor, ContextFor and AnyContext type shared handlers", async () => {
  const got = await app.request("/todos/7");
  const deleted = await app.request("/todos/7", { method: "DELETE" });
  expect([await got.text(), await deleted.text()]).toEqual([
    "todo 7 of ada (GET /todos/7)",
    "deleted 7",
  ]);
  await app.stop();
});
