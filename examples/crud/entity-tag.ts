/**
 * One entity tag of a request header: its opaque quoted text and whether it is weak (`W/`).
 *
 * @example
 * const tag: EntityTag = { weak: true, opaque: '"7-2"' }; // W/"7-2"
 */
export interface EntityTag {
  readonly weak: boolean;
  /** The opaque tag with its quotes, e.g. `"7-2"`. */
  readonly opaque: string;
}

/**
 * An `If-Match` or `If-None-Match` value: `*` or a list of entity tags (RFC 9110 §13.1.1-2).
 *
 * @example
 * const anyNote: EntityTagCondition = { kind: "any" }; // If-Match: *
 */
export type EntityTagCondition =
  | { readonly kind: "any" }
  | { readonly kind: "list"; readonly tags: readonly EntityTag[] };

/**
 * A strong entity tag with `text` as its opaque part, quoted as RFC 9110 §8.8.3 requires.
 * `text` must be made of `etagc` characters: no quote, no space, no control characters.
 *
 * @example
 * strongEntityTag("7-2"); // "\"7-2\""
 */
export function strongEntityTag(text: string): string {
  for (let index = 0; index < text.length; index++) {
    if (!isEntityTagCharacter(text.charCodeAt(index))) {
      throw new TypeError(`entity tag text ${JSON.stringify(text)} has a character etagc forbids`);
    }
  }
  return `"${text}"`;
}

/**
 * Parses an `If-Match` / `If-None-Match` field value (RFC 9110 §13.1.1: `"*" / #entity-tag`),
 * or returns undefined when it is malformed. Empty list elements are skipped as RFC 9110
 * §5.6.1.2 asks of recipients; an empty value is an empty list, which matches nothing.
 *
 * @example
 * parseEntityTagCondition('"1-1", W/"1-2"');
 * // { kind: "list", tags: [{ weak: false, opaque: '"1-1"' }, { weak: true, opaque: '"1-2"' }] }
 */
export function parseEntityTagCondition(value: string): EntityTagCondition | undefined {
  if (value.trim() === "*") return { kind: "any" };
  const tags: EntityTag[] = [];
  let at = 0;
  for (;;) {
    at = skipSeparators(value, at);
    if (at === value.length) return { kind: "list", tags };
    const weak = value.startsWith("W/", at);
    if (weak) at += 2;
    if (value[at] !== '"') return undefined;
    const close = value.indexOf('"', at + 1);
    if (close < 0) return undefined;
    for (let index = at + 1; index < close; index++) {
      if (!isEntityTagCharacter(value.charCodeAt(index))) return undefined;
    }
    tags.push({ weak, opaque: value.slice(at, close + 1) });
    at = skipWhitespace(value, close + 1);
    // Between two tags there must be a comma: `"a" "b"` is not a list.
    if (at < value.length && value[at] !== ",") return undefined;
  }
}

/**
 * Whether `condition` matches the current strong tag `current` under the strong comparison
 * (RFC 9110 §8.8.3.2): both strong and the opaque tags identical. A weak tag never matches, so
 * `If-Match: W/"1-1"` fails even for note 1 at version 1. `*` matches any current tag.
 *
 * @example
 * matchesStrongly(parseEntityTagCondition('"1-1"')!, '"1-1"'); // true
 */
export function matchesStrongly(condition: EntityTagCondition, current: string): boolean {
  if (condition.kind === "any") return true;
  return condition.tags.some((tag) => !tag.weak && tag.opaque === current);
}

/**
 * Whether `condition` matches `current` under the weak comparison (RFC 9110 §8.8.3.2): the
 * opaque tags identical, `W/` ignored. `If-None-Match` uses it (RFC 9110 §13.1.2).
 *
 * @example
 * matchesWeakly(parseEntityTagCondition('W/"1-1"')!, '"1-1"'); // true
 */
export function matchesWeakly(condition: EntityTagCondition, current: string): boolean {
  if (condition.kind === "any") return true;
  return condition.tags.some((tag) => tag.opaque === current);
}

// RFC 9110 §8.8.3: etagc = %x21 / %x23-7E / obs-text
function isEntityTagCharacter(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

function skipWhitespace(value: string, at: number): number {
  while (at < value.length && (value[at] === " " || value[at] === "\t")) at++;
  return at;
}

function skipSeparators(value: string, at: number): number {
  while (at < value.length && (value[at] === " " || value[at] === "\t" || value[at] === ",")) at++;
  return at;
}
