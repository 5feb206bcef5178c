import { expect, test } from "bun:test";
import { listenersWokenPerTurn, Notifier } from "../../src/notifier.ts";

/** The next turn of the event loop (setImmediate, where the notifier wakes the rest). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` listeners counting their wakes, and the notifications seen at each one's last wake. */
function listeners(notifier: Notifier, count: number) {
  const wakes = new Array<number>(count).fill(0);
  const lastWokenAfter = new Array<number>(count).fill(-1);
  const all = wakes.map((_, index) => ({
    wake() {
      wakes[index]!++;
      lastWokenAfter[index] = notifier.notifications;
    },
  }));
  for (const listener of all) expect(notifier.add(listener)).toBe(true);
  return { all, wakes, lastWokenAfter };
}

test("a notify() every turn wakes every listener within ceil(size / 64) + 1 turns, 64 a turn at most", async () => {
  const notifier = new Notifier({ capacity: 1000 });
  const size = 300;
  const { wakes } = listeners(notifier, size);
  const firstWokenAtTurn = new Array<number>(size).fill(-1);
  const total = () => wakes.reduce((sum, count) => sum + count, 0);
  let mostInOneTurn = 0;
  let previous = 0;
  const turns = 30;
  for (let turn = 0; turn < turns; turn++) {
    // One turn: the notifier's own next batch, then this producer's notify().
    notifier.notify();
    mostInOneTurn = Math.max(mostInOneTurn, total() - previous);
    previous = total();
    wakes.forEach((count, index) => {
      if (count > 0 && firstWokenAtTurn[index] === -1) firstWokenAtTurn[index] = turn;
    });
    await nextTurn();
  }
  const bound = Math.ceil(size / listenersWokenPerTurn) + 1;
  expect({
    neverWoken: firstWokenAtTurn.filter((turn) => turn === -1).length,
    lastFirstWake: Math.max(...firstWokenAtTurn) <= bound,
    fewestWakes: Math.min(...wakes) >= Math.floor(turns / bound) - 1,
    mostInOneTurn,
  }).toEqual({
    neverWoken: 0,
    lastFirstWake: true,
    fewestWakes: true,
    mostInOneTurn: listenersWokenPerTurn,
  });
});

test("after a burst of notify() calls each listener is woken again after the last one, then no more", async () => {
  const notifier = new Notifier({ capacity: 1000 });
  const size = 200;
  const { wakes, lastWokenAfter } = listeners(notifier, size);
  for (let count = 0; count < 10; count++) notifier.notify();
  for (let turn = 0; turn < 10; turn++) await nextTurn();
  const settled = wakes.reduce((sum, count) => sum + count, 0);
  for (let turn = 0; turn < 5; turn++) await nextTurn();
  expect({
    // The first notify() wakes 64 at once; the nine after it owe all 200 one wake more.
    total: settled,
    wokenAfterTheLast: lastWokenAfter.filter((seen) => seen === 10).length,
    quietAfterwards: wakes.reduce((sum, count) => sum + count, 0) === settled,
  }).toEqual({
    total: size + listenersWokenPerTurn,
    wokenAfterTheLast: size,
    quietAfterwards: true,
  });
});

test("listeners removed during a sweep are not woken, added ones wait for the next notify(), and the sweep ends", async () => {
  const notifier = new Notifier({ capacity: 1000 });
  const { all, wakes } = listeners(notifier, 200);
  notifier.notify(); // wakes 0..63 now, the rest in the turns after
  for (const listener of all.slice(100, 150)) notifier.remove(listener);
  const late = listeners(notifier, 20);
  for (let turn = 0; turn < 10; turn++) await nextTurn();
  const afterFirst = { early: [...wakes], late: [...late.wakes] };
  notifier.notify();
  for (let turn = 0; turn < 10; turn++) await nextTurn();
  const kept = (counts: number[]) => counts.filter((_, index) => index < 100 || index >= 150);
  expect({
    keptWokenOnce: kept(afterFirst.early).every((count) => count === 1),
    removedNeverWoken: afterFirst.early.slice(100, 150).every((count) => count === 0),
    lateNotWokenForTheFirst: afterFirst.late.every((count) => count === 0),
    secondWakesAll: kept(wakes).every((count) => count === 2) && late.wakes.every((c) => c === 1),
    size: notifier.size,
  }).toEqual({
    keptWokenOnce: true,
    removedNeverWoken: true,
    lateNotWokenForTheFirst: true,
    secondWakesAll: true,
    size: 170,
  });
});

test("a listener that notifies from wake() does not make a turn wake more than 64", async () => {
  const notifier = new Notifier({ capacity: 1000 });
  const { wakes } = listeners(notifier, 150);
  let renotified = 0;
  notifier.add({
    wake() {
      if (renotified++ < 3) notifier.notify();
    },
  });
  const perTurn: number[] = [];
  notifier.notify();
  perTurn.push(wakes.reduce((sum, count) => sum + count, 0));
  for (let turn = 0; turn < 20; turn++) {
    await nextTurn();
    perTurn.push(wakes.reduce((sum, count) => sum + count, 0));
  }
  const increments = perTurn.map((total, index) => total - (perTurn[index - 1] ?? 0));
  expect({
    most: Math.max(...increments) <= listenersWokenPerTurn,
    everyoneWoken: wakes.every((count) => count >= 1),
    renotified: Math.min(renotified, 4),
    settled: increments.slice(-5).every((increment) => increment === 0),
  }).toEqual({ most: true, everyoneWoken: true, renotified: 4, settled: true });
});
