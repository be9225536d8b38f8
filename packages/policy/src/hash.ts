// The policy hash: what the worker stores with each effective policy, the gateway sends as
// OpAMP's config_hash, the agent reports back, and the console compares. Every side must compute
// it byte for byte alike, so the form is pinned here and in docs/policy.md ("Policy hash").
// A subpath export (`@spindle/policy/hash`) because node:crypto has no place in a browser bundle.
import { createHash } from "node:crypto";

/**
 * Canonical JSON (RFC 8785, the JSON Canonicalization Scheme): object keys sorted by UTF-16 code
 * units at every depth, no whitespace, numbers and strings written as ECMAScript's JSON.stringify
 * writes them. Policies hold only integers, booleans, null, strings, lists and objects with ASCII
 * keys, so in practice: sorted keys, compact, integers in plain decimal.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(",")}}`;
  }
  throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
}

/** Lowercase hex SHA-256 of the UTF-8 canonical JSON of an effective policy. */
export function policyHash(policy: unknown): string {
  return createHash("sha256").update(canonicalJson(policy), "utf8").digest("hex");
}
