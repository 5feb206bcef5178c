/** `--processes N` of the `cores` scenario's servers (1 when absent). */
export function parseProcesses(argv: readonly string[] = Bun.argv): number {
  const index = argv.indexOf("--processes");
  const text = index >= 0 ? argv[index + 1] : "1";
  const processes = Number(text);
  if (!Number.isInteger(processes) || processes < 1 || processes > 64) {
    throw new RangeError(`bench server: --processes must be 1 to 64, got ${text}`);
  }
  return processes;
}
