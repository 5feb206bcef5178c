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
const special = /[&<>"'`=/]/g;
/** The same class without `g`: a test that keeps no state between calls. */
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
  // Most values (numbers, plain words) hold nothing to escape: return them as they are.
  if (!anySpecial.test(text)) return text;
  return text.replace(special, (character) => replacements[character]!);
}
