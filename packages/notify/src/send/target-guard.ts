// A hosted console must not let an organisation point a channel at the provider's own network
// (cloud metadata at 169.254.169.254, databases on 10.x): every address a channel's host
// resolves to is checked when connecting, so DNS cannot swap in a private one after validation.
// Self-hosted installations that notify internal receivers allow private targets explicitly.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { DeliveryError } from "./errors.js";

const privateRanges = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) privateRanges.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) {
  privateRanges.addSubnet(network, prefix, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return privateRanges.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return privateRanges.check(address, family === 4 ? "ipv4" : "ipv6");
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
    : await new Promise((resolve, reject) =>
        dnsLookup(literal, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
      );
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
