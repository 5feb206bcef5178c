import { expect, test } from "bun:test";
import { DeadlineClock } from "../src/internal/deadline-clock.ts";

/** A clock over a wall time the test moves by hand. */
function clockAt(intervalMs: number) {
  const wall = { now: 1000 };
  return { wall, clock: new DeadlineClock(intervalMs, () => wall.now) };
}

test("sweeps on time (up to twice the interval apart) excuse nothing", () => {
  const { wall, clock } = clockAt(100);
  const times: number[] = [];
  for (const step of [100, 150, 200, 100]) {
    wall.now += step;
    times.push(clock.tick());
  }
  expect({ times, excused: clock.excusedMs }).toEqual({
    times: [1100, 1250, 1450, 1550],
    excused: 0,
  });
});

test("a late sweep excuses what lies beyond one interval", () => {
  const { wall, clock } = clockAt(100);
  wall.now += 100;
  const before = clock.tick();
  wall.now += 201;
  const after = clock.tick();
  expect({ before, after, excused: clock.excusedMs }).toEqual({
    before: 1100,
    after: 1200,
    excused: 101,
  });
});

test("never two late sweeps in a row: a process always late still lets time pass at half speed or more", () => {
  const { wall, clock } = clockAt(100);
  const start = clock.tick();
  for (let sweep = 0; sweep < 10; sweep++) {
    wall.now += 1000;
    clock.tick();
  }
  // Ten sweeps 1 s apart: five excused 900 ms each, five not.
  expect({ passed: clock.tick() - start, excused: clock.excusedMs }).toEqual({
    passed: 10_000 - 4500,
    excused: 4500,
  });
});

test("read() starts from now without judging the time before it as a stall", () => {
  const { wall, clock } = clockAt(100);
  wall.now += 5000;
  const started = clock.read();
  wall.now += 100;
  expect({ started, next: clock.tick(), excused: clock.excusedMs }).toEqual({
    started: 6000,
    next: 6100,
    excused: 0,
  });
});

test("a delay of less than 50 ms is jitter, not a stall, even at a short interval, and does not spend the excuse", () => {
  const { wall, clock } = clockAt(5);
  wall.now += 50;
  clock.tick();
  wall.now += 405;
  const afterStall = clock.tick();
  expect({ afterStall, excused: clock.excusedMs }).toEqual({ afterStall: 1055, excused: 400 });
});
