// Seeded random frame streams, valid and broken, against the reference decoder
// (support/reference-frames.ts): corral's streaming FrameParser must see the same messages,
// control frames and first error, whether the bytes come at once, in random pieces or one at a
// time; and over TCP an echo server must answer each stream as the reference says it should.
// Set CORRAL_FUZZ_SEED to replay another run; every failure names the seed of its case.
import { expect, test } from "bun:test";
import { validateHandshake, type WebSocketHandler } from "../../index.ts";
import {
  type FrameLimits,
  FrameParser,
  frameControl,
  frameData,
  frameError,
  frameNeedMore,
} from "../../src/websocket/frame-parser.ts";
import { sendInPieces } from "../support/raw-client.ts";
import { type ReferenceEvent, referenceDecode } from "../support/reference-frames.ts";
import { caseSeed, masterSeed } from "../support/seeded-random.ts";
import { startServer } from "../support/test-server.ts";
import { RawWebSocket } from "../support/websocket-client.ts";
import type { ServerFrame } from "../support/websocket-frames.ts";
import { FrameStreamMaker } from "../support/websocket-fuzz-streams.ts";

const cases = 3000;
/** Byte-by-byte feeding is quadratic in nothing but slow in JavaScript: only shorter streams. */
const byteByByteMaxBytes = 4096;

/** Feeds `bytes` in the pieces `cuts` makes, the way a socket hands chunks to a session. */
function streamDecode(
  bytes: Uint8Array,
  cuts: readonly number[],
  limits: FrameLimits,
  copyTargetBytes: number,
): ReferenceEvent[] {
  const parser = new FrameParser(limits);
  parser.copyTarget = new Uint8Array(copyTargetBytes);
  // Bytes not revealed yet are 0xff, so a parser that looked past `end` would differ.
  const buffer = new Uint8Array(bytes.length).fill(0xff);
  const events: ReferenceEvent[] = [];
  let message: number[] = [];
  let revealed = 0;
  for (const end of [...cuts, bytes.length]) {
    buffer.set(bytes.subarray(revealed, end), revealed);
    let position = revealed;
    revealed = end;
    while (position < end) {
      const event = parser.parse(buffer, position, end);
      if (parser.position <= position && event === frameNeedMore) {
        throw new Error(`no progress at ${position} of ${end}`);
      }
      position = parser.position;
      if (event === frameNeedMore) continue;
      if (event === frameError) {
        events.push({ kind: "error", code: parser.closeCode });
        return events;
      }
      if (event === frameControl) {
        const payload = [...parser.controlPayload()];
        events.push(
          parser.controlOpcode === 8
            ? { kind: "control", opcode: 8, payload, closeCode: parser.closeCode }
            : { kind: "control", opcode: parser.controlOpcode, payload },
        );
        continue;
      }
      if (event !== frameData) throw new Error(`unknown event ${event}`);
      if (parser.messageStarted) message = [];
      const source = parser.payloadCopied ? parser.copyTarget : buffer;
      for (let index = parser.payloadStart; index < parser.payloadEnd; index++) {
        message.push(source[index]!);
      }
      if (parser.messageEnded) {
        events.push({ kind: "message", opcode: parser.messageOpcode, payload: message });
      }
    }
  }
  return events;
}

function outcomeName(events: readonly ReferenceEvent[]): string {
  const last = events[events.length - 1];
  return last?.kind === "error" ? `error ${last.code}` : "no error";
}

test(`${cases} random frame streams: the streaming parser agrees with the reference at once, in pieces and byte by byte (seed ${masterSeed})`, () => {
  const mismatches: unknown[] = [];
  const outcomes = new Map<string, number>();
  let messages = 0;
  for (let index = 0; index < cases; index++) {
    const seed = caseSeed("frames", index);
    const maker = new FrameStreamMaker(seed);
    const { bytes, limits } = maker.stream();
    const expected = referenceDecode(bytes, limits);
    const name = outcomeName(expected);
    outcomes.set(name, (outcomes.get(name) ?? 0) + 1);
    messages += expected.filter((event) => event.kind === "message").length;
    const feeds: [string, number[]][] = [
      ["at once", []],
      ["in pieces", maker.cuts(bytes.length, 6)],
    ];
    if (bytes.length <= byteByByteMaxBytes) {
      feeds.push(["byte by byte", Array.from({ length: bytes.length - 1 }, (_, at) => at + 1)]);
    }
    for (const [feed, cuts] of feeds) {
      const copyTargetBytes = maker.pick([0, 8, 125, 4096]);
      const seen = streamDecode(bytes, cuts, limits, copyTargetBytes);
      if (JSON.stringify(seen) === JSON.stringify(expected)) continue;
      mismatches.push({
        seed,
        feed,
        cuts: cuts.length > 8 ? `${cuts.length} cuts` : cuts,
        copyTargetBytes,
        limits,
        bytes: Buffer.from(bytes.subarray(0, 256)).toString("hex"),
        expected: JSON.stringify(expected).slice(0, 400),
        seen: JSON.stringify(seen).slice(0, 400),
      });
    }
  }
  expect({
    seed: masterSeed,
    mismatches: mismatches.slice(0, 3),
    mismatchCount: mismatches.length,
    // The streams reach every outcome: clean, each close code, and whole messages.
    reached: ["no error", "error 1002", "error 1007", "error 1009"].map(
      (name) => (outcomes.get(name) ?? 0) > 20,
    ),
    someMessages: messages > cases,
  }).toEqual({
    seed: masterSeed,
    mismatches: [],
    mismatchCount: 0,
    reached: [true, true, true, true],
    someMessages: true,
  });
}, 60_000);

// ---- over TCP ------------------------------------------------------------------------------------

const socketCases = 1000;
const parallelSockets = 16;
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** What an echo server must send for a stream: its echoes, its pongs, and the close code. */
function expectedAnswer(events: readonly ReferenceEvent[]) {
  const echoes: string[] = [];
  const pongs: string[] = [];
  let close: number | null = null;
  let ending = "still open";
  for (const event of events) {
    if (event.kind === "error") {
      close = event.code;
      ending = `error ${event.code}`;
      break;
    }
    if (event.kind === "message") echoes.push(`${event.opcode}:${hex(event.payload)}`);
    else if (event.opcode === 9) pongs.push(hex(event.payload));
    else if (event.opcode === 8) {
      close = event.closeCode!;
      ending = "client close";
      break;
    }
  }
  return { echoes, pongs, close, ending };
}

function hex(bytes: ArrayLike<number>): string {
  return Buffer.from(Uint8Array.from(bytes)).toString("hex");
}

function seenAnswer(frames: readonly ServerFrame[]) {
  const echoes: string[] = [];
  const pongs: string[] = [];
  let close: number | null = null;
  const problems: string[] = [];
  for (const frame of frames) {
    if (close !== null) problems.push(`a frame (opcode ${frame.opcode}) after the close`);
    if (frame.masked || !frame.final) problems.push("a masked or fragmented server frame");
    if (frame.opcode === 1 || frame.opcode === 2) {
      echoes.push(`${frame.opcode}:${hex(frame.payload)}`);
    } else if (frame.opcode === 10) pongs.push(hex(frame.payload));
    else if (frame.opcode === 8) {
      close = frame.payload.length === 0 ? 1005 : (frame.payload[0]! << 8) | frame.payload[1]!;
    } else problems.push(`opcode ${frame.opcode}`);
  }
  return { echoes, pongs, close, problems };
}

test(`${socketCases} random frame streams over TCP: an echo server answers each as the reference says, then still serves (seed ${masterSeed})`, async () => {
  const streams = Array.from({ length: socketCases }, (_, index) => {
    const seed = caseSeed("socket frames", index);
    const maker = new FrameStreamMaker(seed);
    return { seed, maker, ...maker.stream() };
  });
  const echo: WebSocketHandler = {
    message(session, data, isText) {
      session.send(isText ? textDecoder.decode(data) : data);
    },
    close() {},
  };
  await using server = startServer(
    (exchange) => {
      if (validateHandshake(exchange).kind !== "valid") return;
      const { limits } = streams[Number(exchange.path.slice("/case/".length))]!;
      exchange.upgradeToWebSocket({
        handler: echo,
        limits: { ...limits, maxOutboundBytes: 4 << 20, closeTimeoutMs: 200 },
      });
    },
    { maxConnections: 64, maxWebSocketMessageBytes: 1 << 20 },
  );
  const failures: unknown[] = [];
  const endings = new Map<string, number>();
  const runCase = async (index: number) => {
    const { seed, maker, bytes, limits } = streams[index]!;
    const expected = expectedAnswer(referenceDecode(bytes, limits));
    endings.set(expected.ending, (endings.get(expected.ending) ?? 0) + 1);
    using socket = await RawWebSocket.open(server.port, `/case/${index}`);
    await sendInPieces((piece) => socket.sendBytes(piece), bytes, maker.cuts(bytes.length));
    const arrived = () => {
      const seen = seenAnswer(socket.frames());
      return (
        seen.echoes.length >= expected.echoes.length &&
        seen.pongs.length >= expected.pongs.length &&
        (expected.close === null || seen.close !== null)
      );
    };
    let problem = "";
    try {
      await socket.raw.waitFor(arrived, "the answer", 5000);
      if (expected.close !== null) await socket.waitClosed(5000);
      else await Bun.sleep(20);
    } catch (error) {
      problem = String(error);
    }
    const seen = seenAnswer(socket.frames());
    const same =
      JSON.stringify([seen.echoes, seen.pongs, seen.close]) ===
      JSON.stringify([expected.echoes, expected.pongs, expected.close]);
    if (problem !== "" || !same || seen.problems.length > 0) {
      failures.push({
        seed,
        problem,
        problems: seen.problems,
        expected: JSON.stringify(expected).slice(0, 300),
        seen: JSON.stringify(seen).slice(0, 300),
      });
    }
  };
  let next = 0;
  const lane = async () => {
    while (next < socketCases) await runCase(next++);
  };
  await Promise.all(Array.from({ length: parallelSockets }, lane));

  const deadline = performance.now() + 5000;
  while (server.stats().connectionsOpen > 0 && performance.now() < deadline) await Bun.sleep(10);
  const stats = server.stats();
  // A side client after all of it: served as the first was.
  // A case with the roomy limits: the others cut frames or messages down to their own size.
  const side = streams.findIndex(
    ({ limits }) =>
      limits.maxFragments === 64 &&
      limits.maxFrameBytes === 1 << 20 &&
      limits.maxMessageBytes === 1 << 20,
  );
  using socket = await RawWebSocket.open(server.port, `/case/${side}`);
  socket.sendFrame(1, "still here");
  const [reply] = await socket.waitFrames(1);
  expect({
    seed: masterSeed,
    failures: failures.slice(0, 3),
    failureCount: failures.length,
    handlerFailures: stats.handlerFailures,
    connectionsOpen: stats.connectionsOpen,
    // The streams reach every ending: none, a client close, and each error code.
    reached: ["still open", "client close", "error 1002", "error 1007", "error 1009"].map(
      (ending) => (endings.get(ending) ?? 0) > 5,
    ),
    side: textDecoder.decode(reply!.payload),
  }).toEqual({
    seed: masterSeed,
    failures: [],
    failureCount: 0,
    handlerFailures: 0,
    connectionsOpen: 0,
    reached: [true, true, true, true, true],
    side: "still here",
  });
}, 60_000);
