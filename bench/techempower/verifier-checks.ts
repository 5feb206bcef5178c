/** One finding of the verifier. `fail` makes a server invalid; `warn` is reported only. */
export interface Problem {
  readonly severity: "fail" | "warn";
  readonly url: string;
  readonly message: string;
}

/** A response as the verifier saw it: status, headers (names lower case) and body text. */
export interface SeenResponse {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export type ContentKind = "json" | "html" | "plaintext";

/** TechEmpower's accepted Content-Type values (verifications.py `verify_headers`). */
const contentTypes: Readonly<Record<ContentKind, RegExp>> = {
  json: /^application\/json(; ?charset=(UTF|utf)-8)?$/,
  html: /^text\/html; ?charset=(UTF|utf)-8$/,
  plaintext: /^text\/plain(; ?charset=(UTF|utf)-8)?$/,
};

/** RFC 9110 §5.6.7 IMF-fixdate, the form of `Date` TechEmpower parses. */
const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;
/** How far `Date` may be from this machine's clock (same machine: only the cache's second). */
const dateSkewMs = 3000;

/**
 * Status 200, `Server`, `Date` (IMF-fixdate, close to now), `Content-Type` of the kind, and
 * `Content-Length` or `Transfer-Encoding`; no `Content-Encoding` (the verifier asks for gzip, and
 * TechEmpower forbids compression).
 */
export function checkHeaders(response: SeenResponse, kind: ContentKind): Problem[] {
  const problems: Problem[] = [];
  const fail = (message: string) => problems.push({ severity: "fail", url: response.url, message });
  if (response.status !== 200) fail(`status ${response.status}, expected 200`);
  for (const name of ["Server", "Date", "Content-Type"]) {
    if (!response.headers.has(name)) fail(`required header missing: ${name}`);
  }
  if (!response.headers.has("content-length") && !response.headers.has("transfer-encoding")) {
    fail("neither Content-Length nor Transfer-Encoding");
  }
  if (response.headers.has("content-encoding")) {
    fail(`compressed (Content-Encoding: ${response.headers.get("content-encoding")})`);
  }
  const date = response.headers.get("date");
  if (date !== null) {
    if (!imfFixdate.test(date)) fail(`Date "${date}" is not an IMF-fixdate`);
    else if (Math.abs(Date.parse(date) - Date.now()) > dateSkewMs)
      fail(`Date "${date}" is not now`);
  }
  const type = response.headers.get("content-type");
  if (type !== null && !contentTypes[kind].test(type)) {
    fail(`Content-Type "${type}" does not match ${contentTypes[kind]}`);
  }
  return problems;
}

/** `{"message":"Hello, World!"}`: one key, case-insensitive as TechEmpower compares it. */
export function checkHelloObject(response: SeenResponse): Problem[] {
  const parsed = parseJson(response);
  if (!parsed.ok) return [parsed.problem];
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ severity: "fail", url: response.url, message: "not a JSON object" }];
  }
  const entries = Object.entries(value).map(([key, item]) => [key.toLowerCase(), item] as const);
  const message = entries.find(([key]) => key === "message")?.[1];
  const problems: Problem[] = [];
  if (typeof message !== "string" || message.toLowerCase() !== "hello, world!") {
    problems.push({
      severity: "fail",
      url: response.url,
      message: `message is ${JSON.stringify(message)}`,
    });
  }
  if (entries.length > 1) {
    problems.push({ severity: "warn", url: response.url, message: "more keys than message" });
  }
  return problems;
}

/**
 * A World object `{ id, randomNumber }` (keys case-insensitive), both JSON integers, id 1..10000,
 * and, when `current` is given, randomNumber equal to the row's value in the database now.
 */
export function checkWorldObject(
  url: string,
  value: unknown,
  current?: ReadonlyMap<number, number>,
): Problem[] {
  const fail = (message: string): Problem[] => [{ severity: "fail", url, message }];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail(`expected a JSON object, got ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  const fields = new Map(Object.entries(value).map(([key, item]) => [key.toLowerCase(), item]));
  const id = fields.get("id");
  const randomNumber = fields.get("randomnumber");
  if (!Number.isInteger(id) || !Number.isInteger(randomNumber)) {
    return fail(`id and randomNumber must be JSON integers: ${JSON.stringify(value)}`);
  }
  if ((id as number) < 1 || (id as number) > 10_000) return fail(`id ${id} is not in 1..10000`);
  const problems: Problem[] = [];
  if (fields.size > 2) problems.push({ severity: "warn", url, message: "extra keys in a World" });
  const stored = current?.get(id as number);
  if (current !== undefined && stored !== randomNumber) {
    problems.push(
      ...fail(`World ${id}: answered randomNumber ${randomNumber}, the database has ${stored}`),
    );
  }
  return problems;
}

/** A JSON array of exactly `length` World objects, each checked as `checkWorldObject`. */
export function checkWorldList(
  response: SeenResponse,
  length: number,
  current?: ReadonlyMap<number, number>,
): Problem[] {
  const parsed = parseJson(response);
  if (!parsed.ok) return [parsed.problem];
  if (!Array.isArray(parsed.value)) {
    return [{ severity: "fail", url: response.url, message: "top-level JSON is not an array" }];
  }
  const problems: Problem[] = [];
  if (parsed.value.length !== length) {
    problems.push({
      severity: "fail",
      url: response.url,
      message: `array of ${parsed.value.length} Worlds, expected ${length}`,
    });
  }
  // Like TechEmpower: stop after 5 bad objects rather than list all 500.
  let bad = 0;
  for (const item of parsed.value) {
    const found = checkWorldObject(response.url, item, current);
    if (found.length > 0 && ++bad > 5) break;
    problems.push(...found);
  }
  return problems;
}

export function parseJson(
  response: SeenResponse,
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  if (response.body.length === 0) {
    return { ok: false, problem: { severity: "fail", url: response.url, message: "empty body" } };
  }
  try {
    return { ok: true, value: JSON.parse(response.body) };
  } catch (error) {
    const message = `invalid JSON: ${(error as Error).message}`;
    return { ok: false, problem: { severity: "fail", url: response.url, message } };
  }
}
