import { fortunesPage } from "../../examples/techempower/rules.ts";
import { expectedFortunesHtml, normaliseFortunesHtml } from "./fortunes-html.ts";
import { checkPipelinedPlaintext } from "./pipelined-check.ts";
import {
  type ContentKind,
  checkHeaders,
  checkHelloObject,
  checkWorldList,
  checkWorldObject,
  type Problem,
  parseJson,
  type SeenResponse,
} from "./verifier-checks.ts";
import type { DatabaseInspector } from "./verifier-database.ts";

/** The `queries` values tried on `/queries` and `/updates`, with the row count each must give. */
export const queriesCases: ReadonlyArray<readonly [string | undefined, number]> = [
  ["2", 2],
  ["0", 1],
  ["-3", 1],
  ["foo", 1],
  ["1.5", 1],
  ["501", 500],
  ["", 1],
  [undefined, 1],
  ["20", 20],
];

/** What the verifier found. The server passes when `failures` is empty. */
export interface VerifyReport {
  readonly failures: readonly Problem[];
  readonly warnings: readonly Problem[];
  /** Requests the verifier made. */
  readonly requests: number;
}

/** A `Date` cached at most a second changes between two answers this far apart. */
const dateChangeWaitMs = 2100;
/** TechEmpower: after the 500-row update at most 10% of the rows may be unchanged. */
const updatesCheckedRows = 500;

/**
 * TechEmpower's verification (toolset/test_types/*, verifications.py) re-expressed, against a
 * server on 127.0.0.1:`port` and the database it uses, with anti-cheat of its own: every World
 * row is rewritten before the reads are checked (so each answered row must equal the database
 * now: no cached rows), an extra fortune is inserted before `/fortunes` is fetched (no cached
 * page), and the 500-row update must be persisted row for row, not only answered.
 */
export async function verifyTechEmpower(
  port: number,
  database: DatabaseInspector,
): Promise<VerifyReport> {
  const base = `http://127.0.0.1:${port}`;
  const problems: Problem[] = [];
  let requests = 0;
  const firstDates = new Map<string, string | null>();
  const startedAt = performance.now();
  const get = async (path: string, kind: ContentKind): Promise<SeenResponse> => {
    requests++;
    const url = `${base}${path}`;
    const response = await fetch(url, {
      headers: { "Accept-Encoding": "gzip, deflate, br" },
      decompress: false,
    });
    const seen = {
      url,
      status: response.status,
      headers: response.headers,
      body: await response.text(),
    };
    problems.push(...checkHeaders(seen, kind));
    const route = path.split("?")[0]!;
    if (!firstDates.has(route)) firstDates.set(route, seen.headers.get("date"));
    return seen;
  };

  problems.push(...checkHelloObject(await get("/json", "json")));
  const plaintext = await get("/plaintext", "plaintext");
  if (plaintext.body !== "Hello, World!") {
    problems.push({
      severity: "fail",
      url: plaintext.url,
      message: `body ${JSON.stringify(plaintext.body.slice(0, 40))}`,
    });
  }
  problems.push(...(await checkPipelinedPlaintext(port)));

  await database.rewriteWorlds();
  const current = await database.worlds();
  for (let round = 0; round < 5; round++) {
    const db = await get("/db", "json");
    const parsed = parseJson(db);
    problems.push(
      ...(parsed.ok ? checkWorldObject(db.url, parsed.value, current) : [parsed.problem]),
    );
  }
  for (const [value, length] of queriesCases) {
    const path = value === undefined ? "/queries" : `/queries?queries=${value}`;
    problems.push(...checkWorldList(await get(path, "json"), length, current));
  }

  problems.push(...(await checkFortunes(database, get)));
  problems.push(...(await checkUpdates(database, get)));

  const waited = performance.now() - startedAt;
  if (waited < dateChangeWaitMs) await Bun.sleep(dateChangeWaitMs - waited);
  for (const [route, firstDate] of firstDates) {
    const again = await get(
      route === "/queries" || route === "/updates" ? `${route}?queries=1` : route,
      kindOf(route),
    );
    if (again.headers.get("date") === firstDate) {
      problems.push({
        severity: "fail",
        url: again.url,
        message: `Date did not change in ${dateChangeWaitMs} ms: cached too long`,
      });
    }
  }
  return {
    failures: problems.filter((problem) => problem.severity === "fail"),
    warnings: problems.filter((problem) => problem.severity === "warn"),
    requests,
  };
}

function kindOf(route: string): ContentKind {
  if (route === "/fortunes") return "html";
  return route === "/plaintext" ? "plaintext" : "json";
}

type Get = (path: string, kind: ContentKind) => Promise<SeenResponse>;

/** The page must be the database's fortunes now (an extra one inserted first), plus the added one. */
async function checkFortunes(database: DatabaseInspector, get: Get): Promise<Problem[]> {
  const extra = {
    id: 1000 + Math.floor(Math.random() * 1000),
    message: `<b>Verifier's "extra" fortune & friends #${Math.floor(Math.random() * 1e6)}</b>`,
  };
  await database.insertFortune(extra);
  try {
    const page = await get("/fortunes", "html");
    const expected = expectedFortunesHtml(fortunesPage(await database.fortunes()));
    const seen = normaliseFortunesHtml(page.body);
    if (seen === expected) return [];
    let at = 0;
    while (at < seen.length && seen[at] === expected[at]) at++;
    const message = `the table differs from the database's fortunes at character ${at}: got "${seen.slice(at, at + 60)}", expected "${expected.slice(at, at + 60)}"`;
    return [{ severity: "fail", url: page.url, message }];
  } finally {
    await database.deleteFortune(extra.id);
  }
}

/** Clamps and shapes of `/updates`, then the 500-row case persisted, as TechEmpower counts it. */
async function checkUpdates(database: DatabaseInspector, get: Get): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [value, length] of queriesCases) {
    const path = value === undefined ? "/updates" : `/updates?queries=${value}`;
    problems.push(...checkWorldList(await get(path, "json"), length));
  }
  const before = await database.worlds();
  const response = await get(`/updates?queries=${updatesCheckedRows}`, "json");
  const after = await database.worlds();
  problems.push(...checkWorldList(response, updatesCheckedRows));
  let changed = 0;
  for (const [id, number] of after) if (before.get(id) !== number) changed++;
  if (changed <= updatesCheckedRows * 0.9) {
    problems.push({
      severity: "fail",
      url: response.url,
      message: `only ${changed} World rows changed in the database, expected about ${updatesCheckedRows}`,
    });
  }
  const parsed = parseJson(response);
  if (parsed.ok && Array.isArray(parsed.value)) {
    // Every answered row must be what the database now holds (for a repeated id, the last one).
    const answered = new Map<number, unknown>();
    for (const item of parsed.value as Array<Record<string, unknown>>) {
      answered.set(item.id as number, item.randomNumber ?? item.randomnumber);
    }
    const notPersisted = [...answered].filter(([id, number]) => after.get(id) !== number);
    if (notPersisted.length > 0) {
      problems.push({
        severity: "fail",
        url: response.url,
        message: `${notPersisted.length} answered rows are not what the database holds, e.g. World ${notPersisted[0]![0]}`,
      });
    }
  }
  return problems;
}
