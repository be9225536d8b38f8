// The address of the client a request comes from: the one place the console decides it (issue
// 25, M3). Only the console's own HTTP server (server.ts) sees the TCP peer; it resolves the
// client here and hands it to the application in one header it sets itself, so everything that
// keys on a client (better-auth's sign-in rate limit and session records, and whatever comes
// next) reads the same answer through clientAddressOf and never a header a client wrote.
//
// X-Forwarded-For is believed only from the peers in SPINDLE_TRUSTED_PROXIES: walked from the
// right, each hop a trusted proxy vouches for the one before it, and the first address that is
// not a trusted proxy is the client. From any other peer the header is ignored: a client can
// write any address there, and would get a rate-limit bucket of its own per forged address.
import type { IncomingHttpHeaders } from "node:http";
import { BlockList, isIP } from "node:net";

/** The header server.ts sets on every request to the resolved client address (and removes when a client sends it). */
export const clientAddressHeader = "x-spindle-client-address";

export interface TrustedProxies {
  /** The configured entries, as given (addresses or CIDR prefixes). */
  readonly entries: readonly string[];
  contains(address: string): boolean;
}

/** An address without brackets, zone or IPv4-mapped prefix, or null when it is not an IP address. */
export function normaliseAddress(raw: string): string | null {
  let address = raw.trim();
  if (address.startsWith("[") && address.endsWith("]")) address = address.slice(1, -1);
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) address = mapped[1]!;
  const family = isIP(address);
  if (family === 0) return null;
  return family === 6 ? address.toLowerCase() : address;
}

/**
 * The trusted proxies of SPINDLE_TRUSTED_PROXIES (already split into entries). Throws, naming
 * the entry, on one that is neither an address nor a CIDR prefix.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split("/");
    const normalised = address ? normaliseAddress(address) : null;
    const family = normalised ? (isIP(normalised) === 6 ? "ipv6" : "ipv4") : null;
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = family === "ipv6" ? 128 : 32;
    if (!normalised || !family || rest.length > 0 || (bits !== undefined && (!/^\d+$/.test(prefix!) || bits > maxBits))) {
      throw new Error(`SPINDLE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR prefix such as 10.0.0.5 or 10.1.0.0/16`);
    }
    if (bits === undefined) list.addAddress(normalised, family);
    else list.addSubnet(normalised, bits, family);
  }
  return {
    entries: [...entries],
    contains: (address) => {
      const normalised = normaliseAddress(address);
      if (!normalised) return false;
      return list.check(normalised, isIP(normalised) === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client a request stands for: the TCP peer, unless the peer is a trusted proxy, in which
 * case the rightmost X-Forwarded-For hop that is not itself a trusted proxy. A malformed hop
 * ends the walk at the last address a trusted proxy vouched for. Null only without a peer.
 */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | readonly string[] | undefined,
  trusted: TrustedProxies,
): string | null {
  let client = peer ? normaliseAddress(peer) : null;
  if (!client || !trusted.contains(client)) return client;
  const joined = typeof forwardedFor === "string" ? forwardedFor : (forwardedFor ?? []).join(",");
  const hops = joined
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseAddress(hops[i]!);
    if (!hop) break;
    client = hop;
    if (!trusted.contains(hop)) break;
  }
  return client;
}

/** The client address server.ts resolved for this request; null when it could not (no peer). */
export function clientAddressOf(headers: Headers): string | null {
  const value = headers.get(clientAddressHeader);
  return value ? normaliseAddress(value) : null;
}

/**
 * What server.ts does to every request's headers before Next.js sees them: the resolved client
 * in x-spindle-client-address and as the only X-Forwarded-For entry (a client's own value of
 * either is dropped), and from an untrusted peer no X-Forwarded-Host, -Proto or -Port either, so
 * Next.js derives host and scheme from the connection.
 */
export function rewriteForwardingHeaders(headers: IncomingHttpHeaders, peer: string | undefined, trusted: TrustedProxies): void {
  const peerTrusted = peer !== undefined && trusted.contains(peer);
  const client = resolveClientAddress(peer, headers["x-forwarded-for"], trusted);
  delete headers[clientAddressHeader];
  delete headers["x-forwarded-for"];
  if (!peerTrusted) {
    delete headers["x-forwarded-host"];
    delete headers["x-forwarded-proto"];
    delete headers["x-forwarded-port"];
  }
  if (client) {
    headers[clientAddressHeader] = client;
    headers["x-forwarded-for"] = client;
  }
}

const resolvedMarker = Symbol.for("spindle.console.clientAddressResolved");

/** server.ts says, before Next.js loads, that it resolves client addresses (see instrumentation.ts). */
export function markClientAddressResolved(): void {
  (globalThis as Record<symbol, unknown>)[resolvedMarker] = true;
}

/** Whether this process runs under server.ts, which sets the client address header. */
export function clientAddressResolved(): boolean {
  return (globalThis as Record<symbol, unknown>)[resolvedMarker] === true;
}
