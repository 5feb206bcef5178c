import { expect, test } from "bun:test";
import { App, formatText } from "corral";

function attempt(format: string, values: readonly unknown[]): string {
  try {
    return `ok: ${formatText(format, values)}`;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

test("placeholders take the values in order; doubled braces are literal", () => {
  expect([
    attempt("{} of {} done", [3, 10]),
    attempt("{{{}}}", ["x"]),
    attempt("}}{{", []),
    attempt("{}{}", [null, undefined]),
    attempt("no placeholders", []),
  ]).toEqual(["ok: 3 of 10 done", "ok: {x}", "ok: }{", "ok: nullundefined", "ok: no placeholders"]);
});

test("a mismatch says how many placeholders and how many values there are", () => {
  expect([
    attempt("{} {} {}", [1, 2]),
    attempt("{} done", [1, 2]),
    attempt("done", [1]),
    attempt("{}", []),
  ]).toEqual([
    'TypeError: corral: print format "{} {} {}" has 3 placeholders but 2 values',
    'TypeError: corral: print format "{} done" has 1 placeholder but 2 values',
    'TypeError: corral: print format "done" has 0 placeholders but 1 value',
    'TypeError: corral: print format "{}" has 1 placeholder but 0 values',
  ]);
});

test("a lone brace is named with its index instead of printed as it is", () => {
  expect([
    attempt("hello {name}", ["ada"]),
    attempt("a } b", []),
    attempt("{{}", []),
    attempt(`${"x".repeat(70)}{`, []),
  ]).toEqual([
    'TypeError: corral: print format "hello {name}" has a lone "{" at index 6: a placeholder is "{}", a literal brace is "{{" or "}}"',
    'TypeError: corral: print format "a } b" has a lone "}" at index 2: a placeholder is "{}", a literal brace is "{{" or "}}"',
    'TypeError: corral: print format "{{}" has a lone "}" at index 2: a placeholder is "{}", a literal brace is "{{" or "}}"',
    `TypeError: corral: print format "${"x".repeat(60)}…" has a lone "{" at index 70: a placeholder is "{}", a literal brace is "{{" or "}}"`,
  ]);
});

test("ctx.response.print and the stream writer's print report the same errors", async () => {
  const errors: string[] = [];
  const app = new App({ shared: {} });
  app.route("GET", "/draft", (ctx) => {
    try {
      ctx.response.print("{} of {}", 1);
    } catch (error) {
      errors.push((error as Error).message);
    }
    ctx.response.setStatus(204);
  });
  app.route("GET", "/stream", async (ctx) => {
    const writer = ctx.response.stream(200, "text/plain").writer();
    try {
      await writer.print("{id}", 1);
    } catch (error) {
      errors.push((error as Error).message);
    }
  });
  await app.request("/draft");
  await (await app.request("/stream")).text();
  expect(errors).toEqual([
    'corral: print format "{} of {}" has 2 placeholders but 1 value',
    'corral: print format "{id}" has a lone "{" at index 0: a placeholder is "{}", a literal brace is "{{" or "}}"',
  ]);
  await app.stop();
});
