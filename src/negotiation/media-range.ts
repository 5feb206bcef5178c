import {
  quotedStringEnd,
  skipWhitespace,
  tokenEnd,
  trimWhitespace,
  unquoteString,
} from "../field-syntax.ts";

/**
 * One media range of an `Accept` header, or one media type a server offers, as RFC 9110 §12.5.1
 * and §8.3.1 define them: type and subtype lower-cased, parameters by lower-cased name with their
 * values unquoted, and the weight (`q`) as a number from 0 to 1.
 *
 * @example
 * const [range] = parseAccept("Text/HTML;Level=1;q=0.5");
 * // { type: "text", subtype: "html", parameters: { level: "1" }, quality: 0.5 }
 */
export interface MediaRange {
  /** Lower case; `*` in `*\/*`. */
  readonly type: string;
  /** Lower case; `*` in `type/*` and `*\/*`. */
  readonly subtype: string;
  /** Media type parameters (not `q`, nor what follows it), names lower-cased, values unquoted. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The weight, 0 to 1 in thousandths; 1 when absent. 0 means "not acceptable". */
  readonly quality: number;
}

const slash = 0x2f;
const semicolon = 0x3b;
const equalsSign = 0x3d;
const quote = 0x22;
const fullStop = 0x2e;
const digitZero = 0x30;
const digitOne = 0x31;
const digitNine = 0x39;

/**
 * Parses one list member (OWS already trimmed) into a media range, or `undefined` when it breaks
 * the grammar: not `type/subtype`, a wildcard type with a concrete subtype (`*\/html`), a
 * parameter without `=` or with a bad value, a repeated parameter name (RFC 6838 §4.3), or a `q`
 * that is not a qvalue. Parameters after `q` are accept extensions (RFC 7231 §5.3.2) and ignored.
 * With `weighted` false (a media type a server offers, not a range) any `q` is malformed.
 *
 * @example
 * parseMediaRange("text/html;level=1;q=0.5"); // { ..., parameters: { level: "1" }, quality: 0.5 }
 * parseMediaRange("text/html;q=2"); // undefined
 */
export function parseMediaRange(member: string, weighted = true): MediaRange | undefined {
  const typeEnd = tokenEnd(member, 0);
  if (typeEnd === 0 || member.charCodeAt(typeEnd) !== slash) return undefined;
  const subtypeEnd = tokenEnd(member, typeEnd + 1);
  if (subtypeEnd === typeEnd + 1) return undefined;
  const type = member.slice(0, typeEnd).toLowerCase();
  const subtype = member.slice(typeEnd + 1, subtypeEnd).toLowerCase();
  if (type === "*" && subtype !== "*") return undefined;
  const parameters = new Map<string, string>();
  let quality: number | undefined;
  // RFC 9110 §8.3.1 and §5.6.6: *( OWS ";" OWS [ parameter ] ), each parameter a token "=" a
  // token or a quoted-string; the whole member is checked, also past q.
  let index = subtypeEnd;
  for (;;) {
    index = skipWhitespace(member, index);
    if (index === member.length) break;
    if (member.charCodeAt(index) !== semicolon) return undefined;
    index = skipWhitespace(member, index + 1);
    if (index === member.length) break;
    if (member.charCodeAt(index) === semicolon) continue;
    const nameEnd = tokenEnd(member, index);
    if (nameEnd === index || member.charCodeAt(nameEnd) !== equalsSign) return undefined;
    const valueStart = nameEnd + 1;
    const quoted = member.charCodeAt(valueStart) === quote;
    const valueEnd = quoted ? quotedStringEnd(member, valueStart) : tokenEnd(member, valueStart);
    if (valueEnd <= valueStart) return undefined;
    if (quality === undefined) {
      const name = member.slice(index, nameEnd).toLowerCase();
      if (name === "q") {
        quality = quoted || !weighted ? undefined : qualityValue(member, valueStart, valueEnd);
        if (quality === undefined) return undefined;
      } else {
        if (parameters.has(name)) return undefined;
        parameters.set(
          name,
          quoted ? unquoteString(member, valueStart, valueEnd) : member.slice(valueStart, valueEnd),
        );
      }
    }
    index = valueEnd;
  }
  // fromEntries defines own properties, so a parameter named `__proto__` stays a parameter.
  return {
    type,
    subtype,
    parameters: Object.freeze(Object.fromEntries(parameters)),
    quality: quality ?? 1,
  };
}

/**
 * The weight `text[start, end)` spells, or undefined when it is not a qvalue (RFC 9110 §12.4.2:
 * `( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`).
 */
export function qualityValue(text: string, start: number, end: number): number | undefined {
  const length = end - start;
  const first = text.charCodeAt(start);
  if (length > 5 || (first !== digitZero && first !== digitOne)) return undefined;
  if (length > 1 && text.charCodeAt(start + 1) !== fullStop) return undefined;
  for (let index = start + 2; index < end; index++) {
    const code = text.charCodeAt(index);
    const allowed =
      first === digitZero ? code >= digitZero && code <= digitNine : code === digitZero;
    if (!allowed) return undefined;
  }
  return Number(text.slice(start, end));
}

/**
 * Splits a list field value at the commas between members (RFC 9110 §5.6.1), not those inside a
 * quoted string, trimming OWS; empty members are dropped as the list rule allows. An unterminated
 * quoted string runs to the end of the value and makes that last member malformed.
 *
 * @example
 * splitListMembers('text/html;x="a,b", , image/png'); // ['text/html;x="a,b"', "image/png"]
 */
export function splitListMembers(value: string): string[] {
  const members: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const character = value[index];
    if (quoted) {
      if (character === "\\") index++;
      else if (character === '"') quoted = false;
    } else if (character === '"') {
      quoted = true;
    } else if (character === ",") {
      pushMember(members, value.slice(start, index));
      start = index + 1;
    }
  }
  pushMember(members, value.slice(start));
  return members;
}

function pushMember(members: string[], text: string): void {
  const trimmed = trimWhitespace(text);
  if (trimmed !== "") members.push(trimmed);
}
