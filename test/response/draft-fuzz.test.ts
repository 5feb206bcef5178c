// Seeded random sequences of response-draft calls (text, json, bytes, print, header, setStatus)
// in one handler, run through the App and compared with a model of the guide's rules ("Response
// drafts"): text, json and bytes set the status and replace the body, print appends, a
// Content-Type set by header() is kept by text and json and replaced by bytes, a body on a 204 is
// a TypeError (so a 500), and what was drafted is what goes out. Set CORRAL_FUZZ_SEED to replay
// another run.
import { test } from "bun:test";
import { App, type ResponseDraft } from "corral";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";

const cases = 600;
const statuses = [200, 201, 404, 204] as const;

type Call =
  | { readonly kind: "text"; readonly status: number; readonly text: string }
  | { readonly kind: "json"; readonly status: number; readonly value: unknown }
  | {
      readonly kind: "bytes";
      readonly status: number;
      readonly type: string;
      readonly text: string;
    }
  | { readonly kind: "print"; readonly text: string }
  | { readonly kind: "type"; readonly type: string }
  | { readonly kind: "extra" }
  | { readonly kind: "setStatus"; readonly status: number };

function draw(random: SeededRandom): Call[] {
  const text = () => random.pick(["", "a", "hello", "é"]);
  return Array.from({ length: random.between(0, 5) }, (): Call => {
    switch (random.below(7)) {
      case 0:
        return { kind: "text", status: random.pick(statuses), text: text() };
      case 1:
        return {
          kind: "json",
          status: random.pick(statuses),
          value: random.pick([1, "s", { a: 1 }]),
        };
      case 2:
        return { kind: "bytes", status: random.pick(statuses), type: "image/png", text: text() };
      case 3:
        return { kind: "print", text: text() };
      case 4:
        return { kind: "type", type: "text/html; charset=utf-8" };
      case 5:
        return { kind: "extra" };
      default:
        return { kind: "setStatus", status: random.pick(statuses) };
    }
  });
}

interface Answer {
  readonly status: number;
  readonly type?: string | null;
  readonly body?: string;
  readonly extra?: string | null;
}

const noContent = (status: number) => status === 204;

/** The guide's rules, call by call; a TypeError anywhere is the App's 500. */
function model(calls: readonly Call[]): Answer {
  let status = 200;
  let type: string | undefined;
  let typeFromHeader = false;
  let body = "";
  let extras = 0;
  for (const call of calls) {
    switch (call.kind) {
      case "text":
      case "json":
      case "bytes": {
        const text = call.kind === "json" ? JSON.stringify(call.value) : call.text;
        if (noContent(call.status) && text.length > 0) return { status: 500 };
        status = call.status;
        body = text;
        if (call.kind === "bytes") {
          type = call.type;
          typeFromHeader = false;
        } else if (!typeFromHeader) {
          type = call.kind === "text" ? "text/plain; charset=utf-8" : "application/json";
        }
        break;
      }
      case "print":
        if (noContent(status) && call.text.length > 0) return { status: 500 };
        body += call.text;
        type ??= "text/plain; charset=utf-8";
        break;
      case "type":
        type = call.type;
        typeFromHeader = true;
        break;
      case "extra":
        extras++;
        break;
      case "setStatus":
        if (noContent(call.status) && body.length > 0) return { status: 500 };
        status = call.status;
    }
  }
  return {
    status,
    ...(noContent(status) ? {} : { type: type ?? null, body }),
    extra: extras === 0 ? null : Array(extras).fill("1").join(", "),
  };
}

function run(response: ResponseDraft, calls: readonly Call[]): void {
  for (const call of calls) {
    switch (call.kind) {
      case "text":
        response.text(call.status, call.text);
        break;
      case "json":
        response.json(call.status, call.value);
        break;
      case "bytes":
        response.bytes(call.status, call.type, new TextEncoder().encode(call.text));
        break;
      case "print":
        response.print(call.text.replaceAll("{", "{{").replaceAll("}", "}}"));
        break;
      case "type":
        response.header("Content-Type", call.type);
        break;
      case "extra":
        response.header("X-Extra", "1");
        break;
      case "setStatus":
        response.setStatus(call.status);
    }
  }
}

test(`${cases} random sequences of response-draft calls: the answer is what the guide says (seed ${masterSeed})`, async () => {
  const plans = Array.from({ length: cases }, (_, index) =>
    draw(new SeededRandom(caseSeed("drafts", index))),
  );
  const app = new App({ log: null });
  app.route("GET", "/:index", (ctx) => run(ctx.response, plans[Number(ctx.params.index)]!));
  const mismatches: unknown[] = [];
  for (const [index, calls] of plans.entries()) {
    const response = await app.request(`/${index}`);
    const text = await response.text();
    const expected = model(calls);
    const seen: Answer = {
      status: response.status,
      ...(expected.type === undefined ? {} : { type: response.headers.get("content-type") }),
      ...(expected.body === undefined ? {} : { body: text }),
      ...(expected.extra === undefined ? {} : { extra: response.headers.get("x-extra") }),
    };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) {
      mismatches.push({
        seed: caseSeed("drafts", index),
        calls: JSON.stringify(calls),
        expected,
        seen,
      });
    }
  }
  await app.stop();
  expectNoMismatches(mismatches);
});
