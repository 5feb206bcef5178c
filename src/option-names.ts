/**
 * Refuses a property of `options` that `known` does not list. A misspelt option (`limts`,
 * `reuseport`, `{ body: "stream" }` written `{ stream: true }`) would otherwise be ignored
 * without a word, and what it was meant to set left at its default.
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
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const list = known.join(", ");
    throw new TypeError(`corral: ${call} has no option "${name}" (its options: ${list})`);
  }
}
