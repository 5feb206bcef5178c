import { readFileSync } from "node:fs";

/**
 * Makes sure this process (which holds the clients) and a server it starts (which inherits the
 * hard limit) may open `needed` files: raises this process's soft limit with `prlimit` when the
 * hard limit allows, and otherwise fails naming `what` needs them, with `fewer(hard)` saying how
 * to ask for less.
 */
export function ensureOpenFiles(
  needed: number,
  what: string,
  fewer: (hard: number) => string,
): void {
  let { soft, hard } = openFileLimits();
  if (hard < needed) {
    throw new Error(
      `${what}: needs ${needed} open files per process but the hard limit is ${hard}; ` +
        `raise it (e.g. \`ulimit -Hn ${needed}\` as root, or LimitNOFILE) or ${fewer(hard)}`,
    );
  }
  if (soft >= needed) return;
  Bun.spawnSync(["prlimit", `--pid=${process.pid}`, `--nofile=${needed}:${hard}`]);
  ({ soft, hard } = openFileLimits());
  if (soft < needed) {
    throw new Error(
      `${what}: needs ${needed} open files but the soft limit is ${soft} and prlimit could ` +
        `not raise it; run \`ulimit -n ${needed}\` in the shell first`,
    );
  }
}

function openFileLimits(): { soft: number; hard: number } {
  const line = readFileSync("/proc/self/limits", "latin1")
    .split("\n")
    .find((text) => text.startsWith("Max open files"));
  const [soft, hard] = (line?.slice("Max open files".length).trim().split(/\s+/) ?? []).map(
    (value) => (value === "unlimited" ? Number.POSITIVE_INFINITY : Number(value)),
  );
  return { soft: soft ?? 0, hard: hard ?? 0 };
}
