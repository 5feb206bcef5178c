import { constantTimeEqual } from "corral";

/** A user the example knows, with the password in clear text (demo data only). */
export interface DemoUser {
  readonly username: string;
  readonly password: string;
}

/** The example's users. Demo credentials, shown in the README: never do this in a real app. */
export const demoUsers: readonly DemoUser[] = [
  { username: "ada", password: "analytical-engine" },
  { username: "grace", password: "compiler-1952" },
];

function sha256(bytes: Uint8Array | string): Uint8Array {
  return new Bun.CryptoHasher("sha256").update(bytes).digest();
}

/**
 * A small in-memory user list with a constant-time password check. Each password is kept as its
 * SHA-256 digest, and a presented password is digested and compared with `constantTimeEqual`:
 * digests have one fixed length, so the comparison takes the same time however many bytes of a
 * guess are right, and however long the real password is. An unknown username is compared
 * against a random decoy digest, so it costs the same as a wrong password and the response time
 * does not tell which usernames exist.
 *
 * A fast digest keeps the example simple; a real application stores a slow, salted password hash
 * (`Bun.password.hash`, argon2id) and checks it with `Bun.password.verify` on a worker service.
 */
export class UserDirectory {
  readonly #digests = new Map<string, Uint8Array>();
  readonly #decoy: Uint8Array;

  constructor(users: readonly DemoUser[], randomBytes: (target: Uint8Array) => Uint8Array) {
    for (const user of users) this.#digests.set(user.username, sha256(user.password));
    this.#decoy = randomBytes(new Uint8Array(32));
  }

  /** Whether `password` (UTF-8 bytes) is `username`'s password. */
  verify(username: string, password: Uint8Array): boolean {
    const stored = this.#digests.get(username);
    const matches = constantTimeEqual(stored ?? this.#decoy, sha256(password));
    return stored !== undefined && matches;
  }
}
