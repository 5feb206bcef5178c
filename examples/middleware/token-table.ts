/**
 * Who a bearer token stands for.
 *
 * @example
 * const ada: User = { id: "1", name: "Ada Lovelace" };
 */
export interface User {
  readonly id: string;
  readonly name: string;
}

const equalsSign = 0x3d;

// RFC 6750 §2.1: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ), before any "=".
function isTokenCharacter(code: number): boolean {
  const lower = code | 0x20;
  return (
    (lower >= 0x61 && lower <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x7e ||
    code === 0x2b ||
    code === 0x2f
  );
}

/**
 * Whether `text` has the syntax of a bearer token (RFC 6750 §2.1 `b64token`).
 *
 * @example
 * isBearerTokenSyntax("abc.def"); // true
 * isBearerTokenSyntax("a b"); // false
 */
export function isBearerTokenSyntax(text: string): boolean {
  // b64token = 1*( token characters ) *"=", checked in one pass over the client's text.
  let index = 0;
  while (index < text.length && isTokenCharacter(text.charCodeAt(index))) index++;
  if (index === 0) return false;
  while (index < text.length && text.charCodeAt(index) === equalsSign) index++;
  return index === text.length;
}

function digest(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

/**
 * A fixed, in-memory table of bearer tokens. Tokens are kept only as SHA-256 digests and looked
 * up by the digest of the presented token: how long a lookup takes then says nothing about how
 * much of a real token a guess shares, and the table never holds a usable secret.
 *
 * @example
 * const tokens = new TokenTable({ "ada-token": { id: "1", name: "Ada" } });
 * tokens.find("ada-token")?.name; // "Ada"
 */
export class TokenTable {
  readonly #users = new Map<string, User>();

  constructor(users: Readonly<Record<string, User>>) {
    for (const [token, user] of Object.entries(users)) {
      if (!isBearerTokenSyntax(token)) {
        throw new TypeError("a bearer token must be a b64token (RFC 6750 §2.1)");
      }
      this.#users.set(digest(token), Object.freeze({ ...user }));
    }
  }

  /** The user `token` stands for, or undefined. */
  find(token: string): User | undefined {
    return this.#users.get(digest(token));
  }
}
