import type { ParsedHead } from "./parsed-head.ts";

/**
 * Whether the Host field agrees with an absolute-form target's authority (compared without case;
 * an empty or absent Host is left alone). RFC 9112 §3.2.2 has the server use the target's and
 * ignore Host, but the application reads Host: a request naming two hosts is refused (as Kestrel
 * does), rather than one host routed by a proxy and another seen by the application.
 */
export function hostNamesTarget(head: ParsedHead): boolean {
  if (head.hostCount === 0 || head.hostValueStart === head.hostValueEnd) return true;
  const buffer = head.buffer;
  const base = head.base;
  // The authority follows the scheme's "://" (the target was checked as absolute-form).
  let authorityStart = head.targetStart;
  while (buffer[base + authorityStart] !== 0x3a) authorityStart++;
  authorityStart += 3;
  const length = head.pathStart - authorityStart;
  if (head.hostValueEnd - head.hostValueStart !== length) return false;
  for (let index = 0; index < length; index++) {
    const host = buffer[base + head.hostValueStart + index]!;
    const target = buffer[base + authorityStart + index]!;
    if (host !== target && lowerCase(host) !== lowerCase(target)) return false;
  }
  return true;
}

function lowerCase(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}
