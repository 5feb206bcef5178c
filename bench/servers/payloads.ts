/** The hello-world body every server answers, as text and pre-encoded. */
export const helloText = "Hello, World!";
export const helloBytes: Uint8Array = new TextEncoder().encode(helloText);

/** Size of the large response body. */
export const bigBodyBytes = 5 * 1024 * 1024;

/** The path the large-body servers answer. */
export const bigPath = "/big";

/** A 5 MiB body with a repeating pattern (not zeros, so nothing can special-case it). */
export function makeBigBody(): Uint8Array {
  const body = new Uint8Array(bigBodyBytes);
  for (let index = 0; index < body.length; index++) body[index] = 0x41 + (index % 26);
  return body;
}
