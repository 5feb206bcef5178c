import { heapStats } from "bun:jsc";
import { expect, test } from "bun:test";
import { fakeSession } from "../support/fake-transport.ts";
import { clientFrame } from "../support/websocket-frames.ts";

// See request-allocations.test.ts: a scope object made on every call of a function that holds
// closures, whether they are made or not. The delivery of a message held two.
test("an echoed message allocates no scope objects and no view of its own", () => {
  const { session } = fakeSession(
    {
      message(target, data) {
        target.send(data);
      },
      close() {},
    },
    { maxOutboundBytes: 1 << 30 },
  );
  const frame = clientFrame(2, new Uint8Array(64).fill(1));
  const run = (count: number) => {
    for (let index = 0; index < count; index++) session.onData(frame.slice(), true);
  };
  run(2000);
  Bun.gc(true);
  const before = heapStats().objectTypeCounts;
  run(3000);
  const after = heapStats().objectTypeCounts;
  const perMessage = (type: string) => ((after[type] ?? 0) - (before[type] ?? 0)) / 3000;
  expect(perMessage("JSLexicalEnvironment")).toBeLessThan(0.05);
  // The chunk itself (made here, as Bun makes one per read); messages of one length share the
  // view of the small buffer they were unmasked into.
  expect(perMessage("Uint8Array")).toBeLessThan(1.05);
});
