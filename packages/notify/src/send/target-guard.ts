// A hosted console must not let an organisation point a channel at the provider's own network
// (cloud metadata at 169.254.169.254, databases on 10.x): every address a channel's host
// resolves to is checked when connecting, so DNS cannot swap in a private one after validation.
// Self-hosted installations that notify internal receivers allow private targets explicitly.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { DeliveryError } from "./errors.js";

// IPv4 special-purpose blocks (RFC 6890 and its updates): this host, private, shared (CGNAT),
// loopback, link-local (cloud metadata), IETF protocol assignments, documentation, the 6to4
// relay anycast, benchmarking, multicast, reserved and broadcast.
const ipv4Blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  ipv4Blocked.addSubnet(network, prefix, "ipv4");

// IPv6 blocks that are never a public host: unspecified, loopback, discard-only, the local-use
// NAT64 prefix, IETF assignments that are not global (Teredo, benchmarking, ORCHID), documentation,
// unique local, link-local, the deprecated site-local, and multicast. Ranges that carry an IPv4
// address are judged by that address (ipv4Embedded below).
const ipv6Blocked = new BlockList();
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["64:ff9b:1::", 48],
  ["2001::", 32],
  ["2001:2::", 48],
  ["2001:10::", 28],
  ["2001:20::", 28],
  ["2001:db8::", 32],
  ["3fff::", 20],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  ipv6Blocked.addSubnet(network, prefix, "ipv6");

/** The 16 bytes of a valid IPv6 address (isIP(address) === 6, no zone), embedded dotted quad included. */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted.slice(1).map(Number));
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, rest] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const groups = (part: string | undefined) =>
    part
      ? part
          .split(":")
          .filter((g) => g !== "")
          .map((g) => parseInt(g, 16))
      : [];
  const left = groups(head);
  const right = groups(rest);
  const words = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address stands for, where one of the embedding schemes puts one. */
function ipv4Embedded(bytes: number[]): string | null {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join(".");
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d, IPv4-mapped
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return v4(12); // ::ffff:0:a.b.c.d, IPv4-translated
  if (zero(0, 12)) return "0.0.0.0"; // ::a.b.c.d, IPv4-compatible: deprecated, never a public host
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return v4(12); // 64:ff9b::/96, NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 2002::/16, 6to4
  // ISATAP interface identifiers (::0:5efe:a.b.c.d, ::200:5efe:a.b.c.d) in any prefix.
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe) return v4(12);
  return null;
}

/**
 * Whether an address is anything but a public host: a special-purpose IPv4 block, an IPv6 block
 * that is never global (IPv4-compatible ::a.b.c.d included), or an IPv6 address carrying such an
 * IPv4 address (IPv4-mapped or -translated, NAT64, 6to4, ISATAP). Anything that is no IP address
 * counts as private: refused.
 */
export function isPrivateAddress(raw: string): boolean {
  const address = raw.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return ipv4Blocked.check(address, "ipv4");
  if (family !== 6) return true;
  if (ipv6Blocked.check(address, "ipv6")) return true;
  const embedded = ipv4Embedded(ipv6Bytes(address.toLowerCase()));
  return embedded !== null && ipv4Blocked.check(embedded, "ipv4");
}

export interface TargetPolicy {
  /** Permit loopback, private and link-local addresses, and plain http:// (self-hosted receivers). */
  allowPrivateNetworks: boolean;
}

function refusal(host: string, address: string): DeliveryError {
  return new DeliveryError(
    `${host} resolves to ${address}, a private or local address; channels may only reach public hosts ` +
      `(a self-hosted installation can allow private targets with SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS=true on the worker)`,
    false,
  );
}

/** Resolves `host` to the addresses a connection may use; refuses private ones unless allowed. */
export async function resolveAllowed(host: string, policy: TargetPolicy): Promise<LookupAddress[]> {
  const literal = host.replace(/^\[|\]$/g, "");
  const addresses: LookupAddress[] = isIP(literal)
    ? [{ address: literal, family: isIP(literal) }]
    : await new Promise((resolve, reject) => dnsLookup(literal, { all: true }, (error, found) => (error ? reject(error) : resolve(found))));
  if (policy.allowPrivateNetworks) return addresses;
  const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
  if (blocked) throw refusal(host, blocked.address);
  return addresses;
}

/** A `lookup` for node:http(s) and node:net that applies the policy at connect time. */
export function guardedLookup(policy: TargetPolicy) {
  return (
    hostname: string,
    options: { all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    resolveAllowed(hostname, policy).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}
