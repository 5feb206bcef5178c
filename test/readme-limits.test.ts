import { expect, test } from "bun:test";
import {
  defaultLimits,
  defaultLogLimits,
  defaultRequestViewLimits,
  defaultRoomLimits,
} from "corral";

test("the README's limits table lists every limit with its default", async () => {
  const readme = await Bun.file(`${import.meta.dir}/../README.md`).text();
  const rows = [...readme.matchAll(/^\|\s*`(\w+)`\s*\|\s*(\d+)\s*\|/gm)].map((match) => [
    match[1],
    Number(match[2]),
  ]);
  expect(Object.fromEntries(rows)).toEqual({
    ...defaultLimits,
    ...defaultRequestViewLimits,
    ...defaultLogLimits,
    ...defaultRoomLimits,
  });
});

test("docs/limits.md documents every limit with its default", async () => {
  const doc = await Bun.file(`${import.meta.dir}/../docs/limits.md`).text();
  const rows = [...doc.matchAll(/^\|\s*`(\w+)`\s*\|\s*(\d+)\s*\|/gm)].map((match) => [
    match[1],
    Number(match[2]),
  ]);
  expect(Object.fromEntries(rows)).toEqual({
    ...defaultLimits,
    ...defaultRequestViewLimits,
    ...defaultLogLimits,
    ...defaultRoomLimits,
  });
});
