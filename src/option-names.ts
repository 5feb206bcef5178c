/**
 * The option names of `Options`, from a record that must name every one of them (and nothing
 * else): the compiler says so when an option is added and not listed.
 *
 * @example
 * const names = optionNames<{ port: number; hostname?: string }>({ port: true, hostname: true });
 */
export function optionNames<Options>(names: Record<keyof Options, true>): readonly string[] {
  return Object.freeze(Object.keys(names));
}

/**
 * Refuses a property of `options` that `known` does not list. A misspelt option (`limts`,
 * `reuseport`, `{ body: "stream" }` written `{ stream: true }`, `httponly`) would otherwise be
 * ignored without a word, and what it was meant to set left at its default.
 *
 * @example
 * refuseUnknownOptions({ port: 3000, reuseport: true }, ["hostname", "port"], "listen()");
 * // TypeError: corral: listen() has no option "reuseport" (its options: hostname, port)
 */
export function refuseUnknownOptions(
  options: object,
  known: readonly string[],
  call: string,
): void {
  for (const name in options) {
    if (!Object.hasOwn(options, name) || known.includes(name)) continue;
    const list = known.join(", ");
    throw new TypeError(`corral: ${call} has no option "${name}" (its options: ${list})`);
  }
}
