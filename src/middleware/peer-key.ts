import type { AnyContext } from "corral";

/**
 * The rate-limit key of a request's peer: the IPv4 address, or the /56 prefix of an IPv6 one
 * (one customer's allocation; a /128 would let one client use 2^72 keys). An IPv4 peer of a
 * dual-stack listener (`::ffff:a.b.c.d`) counts as that IPv4 address. In-process requests
 * (`app.request()`) share the key "local".
 *
 * @example
 * peerKey(ctx); // "203.0.113.7" or "2001:db8:12:3400::/56"
 */
export function peerKey(ctx: AnyContext): string {
  const remote = ctx.request.remoteAddress;
  if (remote === undefined) return "local";
  const address = remote.address;
  if (remote.family === "IPv4") return address;
  const lower = address.toLowerCase();
  if (lower.startsWith("::ffff:") && lower.includes(".")) return lower.slice(7);
  return ipv6Prefix56(lower);
}

/** The /56 network of an IPv6 address: the first 3.5 groups, the rest zero. */
export function ipv6Prefix56(address: string): string {
  const zone = address.indexOf("%");
  const bare = zone < 0 ? address : address.slice(0, zone);
  const gap = bare.indexOf("::");
  const head = gap < 0 ? bare.split(":") : bare.slice(0, gap).split(":").filter(Boolean);
  const tail =
    gap < 0
      ? []
      : bare
          .slice(gap + 2)
          .split(":")
          .filter(Boolean);
  const groups = [
    ...head,
    ...new Array(Math.max(0, 8 - head.length - tail.length)).fill("0"),
    ...tail,
  ];
  const value = (index: number) => Number.parseInt(groups[index] ?? "0", 16) || 0;
  const fourth = value(3) & 0xff00;
  return `${[value(0), value(1), value(2), fourth].map((group) => group.toString(16)).join(":")}::/56`;
}
