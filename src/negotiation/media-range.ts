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

// RFC 9110 §5.6.2: token = 1*tchar.
const token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
// RFC 9110 §5.6.4: quoted-string with qdtext and quoted-pair (obs-text included).
const quotedString =
  '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
// RFC 9110 §8.3.1 and §5.6.6: type "/" subtype, then *( OWS ";" OWS [ parameter ] ), written so
// that each space belongs to one place only: no backtracking blow-up on a long malformed value.
const mediaRangePattern = new RegExp(
  `^(${token})/(${token})[ \\t]*((?:;[ \\t]*(?:${token}=(?:${token}|${quotedString})[ \\t]*)?)*)$`,
);
const parameterPattern = new RegExp(`(${token})=(${token}|${quotedString})`, "g");
// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
const qualityPattern = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

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
  const match = mediaRangePattern.exec(member);
  if (match === null) return undefined;
  const type = match[1]!.toLowerCase();
  const subtype = match[2]!.toLowerCase();
  if (type === "*" && subtype !== "*") return undefined;
  const parameters = new Map<string, string>();
  let quality = 1;
  for (const [, rawName, rawValue] of match[3]!.matchAll(parameterPattern)) {
    const name = rawName!.toLowerCase();
    if (name === "q") {
      if (!weighted || !qualityPattern.test(rawValue!)) return undefined;
      quality = Number(rawValue);
      break;
    }
    if (parameters.has(name)) return undefined;
    parameters.set(name, unquote(rawValue!));
  }
  // fromEntries defines own properties, so a parameter named `__proto__` stays a parameter.
  return { type, subtype, parameters: Object.freeze(Object.fromEntries(parameters)), quality };
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
  const trimmed = text.replace(/^[ \t]+|[ \t]+$/g, "");
  if (trimmed !== "") members.push(trimmed);
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/gs, "$1");
}
