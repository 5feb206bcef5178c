/** The value after `--name` on the command line, as a positive number, or `fallback`. */
export function numberOption(name: string, fallback: number, argv: readonly string[] = Bun.argv) {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(argv[index + 1]);
  if (!(value > 0)) throw new Error(`bench: --${name} needs a positive number`);
  return value;
}
