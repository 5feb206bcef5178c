/** The longest file name the uploads example accepts, in characters. */
export const maxFileNameCharacters = 128;

/**
 * Whether `name` (a path capture, which the router has percent-decoded: `a%2Eb` is `a.b`) may
 * name a file in the upload folder: 1 to 128 characters of letters, digits, `.`, `_` and `-`, not
 * starting with a dot. So no path separator (a `%2F` decodes to `/`, which is refused), no `..`,
 * no hidden file. One pass over the characters, no regular expression.
 *
 * @example
 * isValidFileName("report-2024.pdf"); // true
 * isValidFileName(".."); // false
 */
export function isValidFileName(name: string): boolean {
  if (name.length === 0 || name.length > maxFileNameCharacters) return false;
  if (name.charCodeAt(0) === 0x2e) return false;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const allowed =
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x61 && code <= 0x7a) ||
      code === 0x2e ||
      code === 0x5f ||
      code === 0x2d;
    if (!allowed) return false;
  }
  return true;
}
