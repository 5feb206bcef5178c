/**
 * The checks an application header line passes before it is drafted, remembered per name:
 * handlers set the same few headers request after request (`Content-Type` and `Server` on every
 * answer), so a name is checked (and lower-cased) once, and a value again only when it differs
 * from the last one checked under that name. Only the last value of each name was remembered
 * per connection before: two headers set alternately were checked, and their names lower-cased
 * (a new string each time), on every request.
 */

/** A name already checked: its lower-case form, and the last value checked with it. */
interface CheckedName {
  readonly lowerName: string;
  value: string | null;
}

/**
 * Names remembered, for the whole process: the names an application uses are few; past this,
 * new names are checked every time and nothing more is kept.
 */
export const maxCheckedNames = 256;

/** Values longer than this are checked every time rather than kept (a large CSP, a cookie). */
export const maxRememberedValueLength = 256;

const checkedNames = new Map<string, CheckedName>();

/**
 * Checks `name: value` as a response header line (RFC 9110 §5.1, §5.5) and returns the name in
 * lower case; throws a TypeError for an invalid name or value.
 */
export function checkHeaderLine(name: string, value: string): string {
  let checked = checkedNames.get(name);
  if (checked === undefined) {
    validateHeaderName(name);
    checked = { lowerName: name.toLowerCase(), value: null };
    if (checkedNames.size < maxCheckedNames) checkedNames.set(name, checked);
  }
  if (value !== checked.value) {
    validateHeaderValue(name, value);
    if (value.length <= maxRememberedValueLength) checked.value = value;
  }
  return checked.lowerName;
}

function validateHeaderName(name: string): void {
  if (name.length === 0) throw new TypeError("corral: a header name must not be empty");
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const isToken =
      (code >= 0x61 && code <= 0x7a) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x30 && code <= 0x39) ||
      (code < 0x7f && "!#$%&'*+-.^_`|~".includes(name[index]!));
    if (!isToken) throw new TypeError(`corral: invalid header name ${JSON.stringify(name)}`);
  }
}

function validateHeaderValue(name: string, value: string): void {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // RFC 9110 §5.5: no CR, LF, NUL or other controls but HTAB; Latin-1 only on the wire.
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) {
      throw new TypeError(`corral: invalid character in the value of header ${name}`);
    }
  }
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) {
    throw new TypeError(
      `corral: the value of header ${name} must not start or end with whitespace`,
    );
  }
}

/**
 * Whether `name` is `Date` in any letter case, without making a lower-case copy (a four-letter
 * name drafted on every answer, `Vary` say, would make one each time).
 */
export function isDateName(name: string): boolean {
  return (
    name.length === 4 &&
    (name.charCodeAt(0) | 0x20) === 0x64 &&
    (name.charCodeAt(1) | 0x20) === 0x61 &&
    (name.charCodeAt(2) | 0x20) === 0x74 &&
    (name.charCodeAt(3) | 0x20) === 0x65
  );
}
