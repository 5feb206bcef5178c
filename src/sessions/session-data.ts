/**
 * A session's data as JSON, as both stores keep it: what Redis holds must be text, and the
 * memory store keeps the same form so that code moved from one store to the other behaves alike.
 * Data JSON cannot carry (`undefined`, a function, a `BigInt`, a cycle) is a `TypeError` at
 * `create`, before anything is stored.
 */
export function sessionJson(data: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new TypeError(`corral: session data must be JSON: ${detail}`, { cause: error });
  }
  if (json === undefined) {
    throw new TypeError(`corral: session data must be JSON, got ${typeof data}`);
  }
  return json;
}

/**
 * The data `json` holds, deeply frozen. A session's data is fixed at creation (neither store
 * can update it), so a handler changing what `get` returned would change nothing stored: frozen,
 * that change is a `TypeError` where it is made instead of a loss found later.
 */
export function frozenSessionData<Data>(json: string): Data {
  const data: unknown = JSON.parse(json);
  // Iterative: JSON may nest deeper than the call stack reaches.
  const pending: unknown[] = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    Object.freeze(value);
    for (const member of Object.values(value)) pending.push(member);
  }
  return data as Data;
}
