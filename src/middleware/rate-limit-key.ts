/** Keys up to this many UTF-16 units are kept as they are; longer ones as a digest. */
export const maxKeptKeyLength = 64;

const hasher = new Bun.CryptoHasher("sha256");

/**
 * The form a rate-limit store keeps `key` in: the key itself when short, otherwise a NUL and its
 * SHA-256 digest in base64 (45 characters). A key function may take its key from the request (a
 * header can be 16 KiB); kept whole, the fixed table's slots could hold capacity times that. The
 * NUL keeps a short key from ever naming a digest's slot; one starting with NUL is digested too.
 */
export function storedRateLimitKey(key: string): string {
  if (key.length <= maxKeptKeyLength && key.charCodeAt(0) !== 0) return key;
  hasher.update(key);
  return `\u0000${hasher.digest("base64")}`;
}
