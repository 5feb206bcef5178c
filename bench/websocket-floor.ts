// The floor of corral's transport for `bench/websocket.ts`: a `Bun.listen` server that does only
// what no WebSocket server can skip on that transport. It answers every handshake with one fixed
// 101, reads only the frame headers of what the bench's generator sends (it never unmasks,
// copies or checks a payload), and for each whole message writes a reply frame made once at
// start: back to the sender on /echo; on /room to every member, each member's frames of one
// turn of the event loop in one write (as corral batches them). A WebSocket server on
// `Bun.listen` cannot beat this row; it shows what the transport leaves for parsing, handlers
// and queues.
import type { Socket } from "bun";

const switched = new TextEncoder().encode(
  "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    // The accept key of the generator's one fixed Sec-WebSocket-Key (RFC 6455 §1.3's example).
    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
);

/** One unmasked server frame of `payloadLength` bytes, made once. */
function replyFrame(opcode: number, payloadLength: number): Uint8Array {
  const header = payloadLength < 126 ? 2 : payloadLength < 0x1_0000 ? 4 : 10;
  const frame = new Uint8Array(header + payloadLength).fill(0x61, header);
  frame[0] = 0x80 | opcode;
  if (header === 2) frame[1] = payloadLength;
  else if (header === 4) {
    frame[1] = 126;
    frame[2] = payloadLength >>> 8;
    frame[3] = payloadLength & 0xff;
  } else {
    frame[1] = 127;
    new DataView(frame.buffer).setBigUint64(2, BigInt(payloadLength));
  }
  return frame;
}

interface FloorSocket {
  upgraded: boolean;
  room: boolean;
  head: string;
  /** Bytes of the current client frame still to come, after its header. */
  remaining: number;
  reply: Uint8Array;
  /** Room frames owed to this member this turn. */
  owed: number;
}

const replies = new Map<string, Uint8Array>();
function replyFor(opcode: number, payloadLength: number): Uint8Array {
  const key = `${opcode}:${payloadLength}`;
  let frame = replies.get(key);
  if (frame === undefined) {
    frame = replyFrame(opcode, payloadLength);
    replies.set(key, frame);
  }
  return frame;
}

/** Starts the floor server on a free port of 127.0.0.1 and prints "listening PORT". */
export function startTransportFloor(): void {
  const members: Socket<FloorSocket>[] = [];
  // Room frames are all the same size here: a turn's frames for a member are `owed` copies.
  let roomFrame: Uint8Array = new Uint8Array(0);
  let copies: Uint8Array = new Uint8Array(0);
  let flushQueued = false;
  const flushRoom = () => {
    flushQueued = false;
    for (const member of members) {
      let owed = member.data.owed;
      member.data.owed = 0;
      while (owed > 0) {
        const count = Math.min(owed, copies.length / roomFrame.length);
        member.write(copies, 0, count * roomFrame.length);
        owed -= count;
      }
    }
  };
  const owe = (frame: Uint8Array) => {
    if (frame !== roomFrame) {
      roomFrame = frame;
      copies = new Uint8Array(frame.length * 64);
      for (let at = 0; at < copies.length; at += frame.length) copies.set(frame, at);
    }
    for (const member of members) member.data.owed++;
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flushRoom);
    }
  };
  const server = Bun.listen<FloorSocket>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = {
          upgraded: false,
          room: false,
          head: "",
          remaining: 0,
          reply: switched,
          owed: 0,
        };
      },
      data(socket, chunk) {
        const state = socket.data;
        if (!state.upgraded) {
          state.head += Buffer.from(chunk).toString("latin1");
          if (!state.head.includes("\r\n\r\n")) return;
          state.upgraded = true;
          state.room = state.head.startsWith("GET /room");
          socket.write(switched);
          if (state.room) members.push(socket);
          return;
        }
        // The generator sends whole frames with 7- or 16-bit lengths: only headers are read.
        let at = 0;
        while (at < chunk.length) {
          if (state.remaining === 0) {
            const opcode = chunk[at]! & 0x0f;
            let length = chunk[at + 1]! & 0x7f;
            at += 2;
            if (length === 126) {
              length = (chunk[at]! << 8) | chunk[at + 1]!;
              at += 2;
            }
            at += 4;
            state.remaining = length;
            state.reply = replyFor(opcode, length);
          }
          const taken = Math.min(state.remaining, chunk.length - at);
          state.remaining -= taken;
          at += taken;
          if (state.remaining > 0) break;
          if (!state.room) socket.write(state.reply);
          else owe(state.reply);
        }
      },
      close(socket) {
        const index = members.indexOf(socket);
        if (index >= 0) members.splice(index, 1);
      },
    },
  });
  console.log(`listening ${server.port}`);
}
