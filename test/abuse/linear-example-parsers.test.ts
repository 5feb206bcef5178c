import { describe, expect, test } from "bun:test";
import { parseImfFixdate } from "../../examples/cookies/http-date.ts";
import { parseEntityTagCondition } from "../../examples/crud/entity-tag.ts";
import { checkJsonContentType } from "../../examples/crud/json-body.ts";
import { Problem } from "../../examples/crud/problem.ts";
import { bearerCredentials } from "../../examples/middleware/bearer-auth.ts";
import { isBearerTokenSyntax } from "../../examples/middleware/token-table.ts";
import { expectLinear, filled, linearCase } from "./support/linear-work.ts";

// Issue "No client can deny service to other clients", point 3, for the parsers of request data
// the examples carry: they are models people copy, so they are linear too.

const contentTypeAnswer = (contentType: string) => {
  try {
    checkJsonContentType(contentType);
    return "accepted";
  } catch (error) {
    if (error instanceof Problem) return error.status;
    throw error;
  }
};

describe("examples", () => {
  test.each([
    linearCase({
      name: "crud Content-Type: semicolons",
      build: (bytes) => filled(bytes, "application/json", ";"),
      run: contentTypeAnswer,
      check: (answer) => expect(answer).toBe("accepted"),
    }),
    linearCase({
      name: "crud Content-Type: spaces and equals signs",
      build: (bytes) => filled(bytes, "application/json;", " =", "charset=utf-8"),
      run: contentTypeAnswer,
      check: (answer) => expect(answer).toBe("accepted"),
    }),
    linearCase({
      name: "crud Content-Type: a quoted charset of quotes",
      build: (bytes) => filled(bytes, "application/json; charset=", '"'),
      run: contentTypeAnswer,
      check: (answer) => expect(answer).toBe(415),
    }),
    linearCase({
      name: "crud If-Match: separators",
      build: (bytes) => filled(bytes, "", ", \t", '"a"'),
      run: parseEntityTagCondition,
      check: (condition) =>
        expect(condition).toEqual({ kind: "list", tags: [{ weak: false, opaque: '"a"' }] }),
    }),
    linearCase({
      name: "crud If-Match: an unterminated tag",
      build: (bytes) => filled(bytes, 'W/"', "a"),
      run: parseEntityTagCondition,
      check: (condition) => expect(condition).toBeUndefined(),
    }),
    linearCase({
      name: "crud If-Match: many tags",
      build: (bytes) => filled(bytes, "", '"a",'),
      run: (value: string) => parseEntityTagCondition(value)?.kind,
      check: (kind) => expect(kind).toBe("list"),
    }),
    linearCase({
      name: "middleware Authorization: spaces after the scheme",
      build: (bytes) => filled(bytes, "Bearer", " ", "t"),
      run: bearerCredentials,
      check: (token) => expect(token).toBe("t"),
    }),
    linearCase({
      // Not reachable over HTTP (field values are Latin-1), but it made the old pattern
      // /^([^ ]+) +(.*)$/ quadratic: `.` stops at U+2028, so each split of the spaces was tried.
      name: "middleware Authorization: spaces, then a line separator",
      build: (bytes) => filled(bytes, "Bearer", " ", "\u2028t"),
      run: bearerCredentials,
    }),
    linearCase({
      name: "middleware Authorization: a long scheme without a space",
      build: (bytes) => "B".repeat(bytes),
      run: bearerCredentials,
      check: (token) => expect(token).toBeUndefined(),
    }),
    linearCase({
      name: "middleware bearer token: equals signs, then a bad byte",
      build: (bytes) => filled(bytes, "a", "=", "a"),
      run: isBearerTokenSyntax,
      check: (valid) => expect(valid).toBe(false),
    }),
    linearCase({
      name: "middleware bearer token: token characters, then a bad byte",
      build: (bytes) => filled(bytes, "", "a", " "),
      run: isBearerTokenSyntax,
      check: (valid) => expect(valid).toBe(false),
    }),
    linearCase({
      name: "cookies expires: a long near-date",
      build: (bytes) => filled(bytes, "Sun, 06 Nov 1994 08:49:37 GMT", " "),
      run: parseImfFixdate,
      check: (date) => expect(date).toBeUndefined(),
    }),
  ])("$name", (testCase) => expectLinear(testCase));
});
