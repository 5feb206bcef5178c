import { expect, test } from "bun:test";
import { maxWaitingReportBytes, ReportWriter } from "../../src/failure-log.ts";

/** A sink that keeps every text and settles each write only when `settle()` is called. */
function slowSink() {
  const texts: string[] = [];
  let settle: () => void = () => {};
  const sink = (text: string) => {
    texts.push(text);
    return new Promise<void>((resolve) => {
      settle = resolve;
    });
  };
  return { texts, sink, settle: () => settle() };
}

test("a report is console.error's text: strings as they are (no format directives), the rest inspected", () => {
  const texts: string[] = [];
  const reports = new ReportWriter((text) => void texts.push(text), maxWaitingReportBytes);
  const error = new TypeError("a bug");
  reports.error("corral: GET /%s answered 500 after an error:", error);
  reports.error("corral: a summary", "and a string");
  expect(texts).toEqual([
    `corral: GET /%s answered 500 after an error: ${Bun.inspect(error)}\n`,
    "corral: a summary and a string\n",
  ]);
  expect(texts[0]).toContain("TypeError: a bug\n");
  expect(texts[0]).toContain("failure-report-writer.test.ts");
});

test("while the sink is busy, reports exactly at the bound wait; one byte over is dropped and counted", async () => {
  const { texts, sink, settle } = slowSink();
  const reports = new ReportWriter(sink, 10);
  reports.error("first"); // handed to the sink at once
  reports.error("1234"); // 5 bytes with its newline
  reports.error("5678"); // 10 bytes waiting: the bound
  reports.error(""); // 1 byte more: dropped
  reports.error("a report longer than the bound"); // dropped, even alone
  expect(texts).toEqual(["first\n"]);
  settle();
  await Bun.sleep(0);
  expect(texts).toEqual([
    "first\n",
    "1234\n5678\ncorral: 2 failure reports were dropped: stderr was not read fast enough (at most 10 bytes of reports wait for it)\n",
  ]);
  // The count starts again; a sink done writing takes the next report at once.
  settle();
  await Bun.sleep(0);
  reports.error("é€"); // 6 bytes (UTF-8) with its newline
  expect(texts.at(-1)).toBe("é€\n");
});

test("a sink that fails (stderr gone) loses its text; the next reports are still written", async () => {
  const texts: string[] = [];
  let failing = true;
  const reports = new ReportWriter((text) => {
    if (failing) throw new Error("EPIPE");
    texts.push(text);
  }, 100);
  reports.error("lost");
  failing = false;
  reports.error("kept");
  expect(texts).toEqual(["kept\n"]);
  let rejecting = true;
  const rejected = new ReportWriter((text) => {
    texts.push(text);
    return rejecting ? Promise.reject(new Error("EPIPE")) : undefined;
  }, 100);
  rejected.error("written, then rejected");
  rejecting = false;
  await Bun.sleep(0);
  rejected.error("after");
  expect(texts.slice(1)).toEqual(["written, then rejected\n", "after\n"]);
});
