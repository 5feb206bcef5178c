// Seeded random reconnections of an SSE client, checked against a model of the replay rules in
// the guide ("Server-sent events"): a channel with a small ring has published a random number of
// events; a client connects with a random `Last-Event-ID` (none, not an id this server issues,
// in the ring, just before it, fallen out of it, the latest, or from before a restart), then
// more events are published. What it reads must be exactly the model's: the events after its id
// still held, a `gap` event (`missedFrom`, `resumedAt`, and the id before `resumedAt`) when it
// cannot resume exactly, then every new event, in order, each with its id. Read by a real
// client (fetch) and interpreted as WHATWG HTML §9.2.6 says.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { test } from "bun:test";
import { App, EventChannel, serverSentEvents } from "corral";
import {
  caseSeed,
  expectNoMismatches,
  masterSeed,
  SeededRandom,
} from "../../engine/test/support/seeded-random.ts";
import { waitUntil } from "../../engine/test/support/test-server.ts";
import { listenQuietly } from "../support/listen-quietly.ts";
import { type ParsedEvent, readEventStream } from "./event-stream-parser.ts";

const cases = 60;
const capacity = 8;

interface Expected {
  readonly type: string;
  readonly data: string;
  readonly lastEventId: string;
}

/** What a client with `lastEventId` reads: `published` before it came, `later` after. */
function model(header: string | undefined, published: number, later: number): Expected[] {
  const id =
    header !== undefined && /^(0|[1-9][0-9]{0,15})$/.test(header) ? Number(header) : undefined;
  const cursor = id ?? published;
  const oldest = Math.max(1, published - capacity + 1);
  const expected: Expected[] = [];
  let from = cursor + 1;
  if (cursor > published || cursor < oldest - 1) {
    // Resumes at the oldest held, or at the next one published when none is.
    const resumedAt = published === 0 ? published + 1 : oldest;
    expected.push({
      type: "gap",
      data: JSON.stringify({ missedFrom: cursor + 1, resumedAt }),
      lastEventId: String(resumedAt - 1),
    });
    from = resumedAt;
  }
  for (let event = from; event <= published + later; event++) {
    expected.push({
      type: "message",
      data: JSON.stringify({ n: event }),
      lastEventId: String(event),
    });
  }
  return expected;
}

test(`${cases} random SSE reconnections: replay, gap and new events are the model's (seed ${masterSeed})`, async () => {
  const mismatches: unknown[] = [];
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("sse-replay", index);
    const random = new SeededRandom(seed);
    const channel = new EventChannel<{ n: number }>({
      replayCapacity: capacity,
      maxSubscribers: 4,
    });
    const app = new App({ shared: {} });
    app.continuation("GET", "/events", serverSentEvents(channel));
    const server = listenQuietly(app);
    try {
      const published = random.pick([0, 1, 3, capacity, capacity + 1, 13]);
      for (let n = 1; n <= published; n++) channel.publish({ n });
      const oldest = Math.max(1, published - capacity + 1);
      const header = random.pick([
        undefined,
        "abc",
        "007",
        "-1",
        "0",
        String(published),
        String(Math.max(0, published - 2)),
        String(oldest - 1),
        String(Math.max(0, oldest - 2)),
        String(published + 3),
        "99999999999999999",
      ]);
      const later = random.between(0, 4);
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${server.port}/events`, {
        headers: header === undefined ? {} : { "Last-Event-ID": header },
        signal: controller.signal,
      });
      await waitUntil(() => channel.subscribers === 1, "the stream to wait");
      for (let n = published + 1; n <= published + later; n++) channel.publish({ n });
      const expected = model(header, published, later);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let events: ParsedEvent[] = [];
      const deadline = Date.now() + 2000;
      while (events.length < expected.length && Date.now() < deadline) {
        const chunk = await Promise.race([reader.read(), Bun.sleep(100).then(() => null)]);
        if (chunk?.value !== undefined) text += decoder.decode(chunk.value, { stream: true });
        events = readEventStream(text).events;
      }
      // Nothing more than the model's arrives either.
      const extra = await Promise.race([reader.read(), Bun.sleep(30).then(() => null)]);
      if (extra?.value !== undefined) text += decoder.decode(extra.value, { stream: true });
      controller.abort();
      events = readEventStream(text).events;
      if (!Bun.deepEquals(events, expected)) {
        mismatches.push({ seed, published, header, later, expected, events });
      }
    } finally {
      await app.stop();
    }
  }
  expectNoMismatches(mismatches);
}, 60_000);
