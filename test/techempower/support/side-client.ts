import { RawClient } from "../../../engine/test/support/raw-client.ts";

/** What a side client saw: every status, and the slowest answer (connect to last byte). */
export interface SideClientReport {
  readonly statuses: readonly number[];
  readonly worstMs: number;
}

/**
 * A client beside a flood: every `periodMs`, a new connection sends `GET target` with
 * `Connection: close` and times the answer, until `until` resolves. An answer that does not come
 * within `timeoutMs` counts as status 0 with that wait.
 */
export async function runSideClient(
  port: number,
  target: string,
  until: Promise<unknown>,
  periodMs = 50,
  timeoutMs = 5000,
): Promise<SideClientReport> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const statuses: number[] = [];
  let worstMs = 0;
  while (!done) {
    const started = performance.now();
    let status = 0;
    try {
      using client = await RawClient.connect(port);
      client.send(`GET ${target} HTTP/1.1\r\nHost: side\r\nConnection: close\r\n\r\n`);
      status = (await client.response(timeoutMs)).status;
    } catch {
      status = 0;
    }
    const elapsed = performance.now() - started;
    worstMs = Math.max(worstMs, elapsed);
    statuses.push(status);
    if (elapsed < periodMs) await Bun.sleep(periodMs - elapsed);
  }
  return { statuses, worstMs };
}
