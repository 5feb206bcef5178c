import { expect, test } from "bun:test";
import { App, Duration, ManualIo, systemIo } from "corral";

test("ManualIo moves both clocks only on advance() and fires due timers in order", () => {
  const io = new ManualIo({ wallStartMs: 1_000_000 });
  const fired: string[] = [];
  io.setTimer(30, () => fired.push(`b at ${io.monotonicNow()}`));
  io.setTimer(10, () => {
    fired.push(`a at ${io.monotonicNow()}`);
    io.setTimer(5, () => fired.push(`c at ${io.monotonicNow()}`));
  });
  const cancelled = io.setTimer(20, () => fired.push("cancelled"));
  cancelled.cancel();
  io.advance(9);
  expect(fired).toEqual([]);
  io.advance(100);
  expect(fired).toEqual(["a at 10", "c at 15", "b at 30"]);
  expect([io.monotonicNow(), io.wallNow(), io.pendingTimers]).toEqual([109, 1_000_109, 0]);
  expect(() => io.advance(-1)).toThrow(RangeError);
});

test("ctx.sleep follows the App's Io: nothing happens until the manual clock moves", async () => {
  const io = new ManualIo();
  const app = new App({ shared: {}, io });
  app.route("GET", "/", async (ctx) => {
    const started = io.monotonicNow();
    await ctx.sleep(Duration.fromMilliseconds(250));
    await ctx.sleep(50);
    ctx.response.text(200, `slept ${io.monotonicNow() - started}`);
  });
  const pending = app.request("/");
  while (io.pendingTimers === 0) await Bun.sleep(1);
  io.advance(250);
  while (io.pendingTimers === 0) await Bun.sleep(1);
  io.advance(50);
  expect(await (await pending).text()).toBe("slept 300");
  await app.stop();
});

test("systemIo gives monotonic time, wall time, timers and random bytes", async () => {
  const before = systemIo.monotonicNow();
  await new Promise<void>((resolve) => systemIo.setTimer(5, resolve));
  expect(systemIo.monotonicNow()).toBeGreaterThan(before);
  expect(Math.abs(systemIo.wallNow() - Date.now())).toBeLessThan(1000);
  const random = systemIo.randomBytes(new Uint8Array(32));
  expect(random.some((byte) => byte !== 0)).toBe(true);
  expect(() => Duration.fromMilliseconds(-1)).toThrow(RangeError);
});
