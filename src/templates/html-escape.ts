/** The entity of each character escaped, by character code (all are ASCII). */
const entities: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = new Array(128).fill(undefined);
  const replacements: Readonly<Record<string, string>> = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
    "/": "&#x2F;",
    "`": "&#x60;",
    "=": "&#x3D;",
  };
  for (const [character, entity] of Object.entries(replacements)) {
    table[character.charCodeAt(0)] = entity;
  }
  return table;
})();
/** The same characters as a class: one native scan finds the first (or tells there is none). */
const anySpecial = /[&<>"'`=/]/;

/**
 * Escapes a value for HTML text and quoted attribute values: `& < > " '` always, and `` / ` = ``
 * as mustache.js does by default, so templates behave as its documentation says. It is a fixed
 * function of its own rather than the global `Mustache.escape`, which any code may reassign: a
 * `TemplateSet` keeps escaping whatever else happens in the process.
 *
 * @example
 * escapeHtml(`<a href="x">Tom & 'Jerry'</a>`);
 * // "&lt;a href&#x3D;&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;&#x2F;a&gt;"
 */
export function escapeHtml(value: unknown): string {
  const text = String(value);
  // Most values (numbers, plain words) hold nothing to escape: returned as they are.
  const first = text.search(anySpecial);
  if (first < 0) return text;
  // From the first, a loop over a table: a `replace` calling a function for each character
  // cost about twice as much on TechEmpower's fortunes.
  let escaped = text.slice(0, first);
  let copied = first;
  for (let index = first; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const entity = code < 128 ? entities[code] : undefined;
    if (entity === undefined) continue;
    if (index > copied) escaped += text.slice(copied, index);
    escaped += entity;
    copied = index + 1;
  }
  return copied < text.length ? escaped + text.slice(copied) : escaped;
}
