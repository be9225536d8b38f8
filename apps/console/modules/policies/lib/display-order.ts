// Policies are stored as jsonb, which keeps object keys in its own order (shortest first). People
// read them in the schema's order, taken from @spindle/policy itself rather than a copied list.
import { parsePolicy } from "@spindle/policy";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// A policy with every default and one preallocation rule, so list items have a key order too.
const parsedTemplate = parsePolicy({ schemaVersion: 1, writeOptimization: { enabled: true, preallocation: [{ pattern: "/template" }] } });
const template: unknown = parsedTemplate.ok ? parsedTemplate.policy : {};

function order(value: unknown, shape: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => order(item, Array.isArray(shape) ? shape[0] : undefined));
  if (!isPlainObject(value)) return value;
  const known = isPlainObject(shape) ? Object.keys(shape) : [];
  const keys = [...known.filter((key) => key in value), ...Object.keys(value).filter((key) => !known.includes(key))];
  return Object.fromEntries(keys.map((key) => [key, order(value[key], isPlainObject(shape) ? shape[key] : undefined)]));
}

/** The same document with keys in the schema's order; unknown keys follow, as written. */
export function orderLikeSchema<T>(document: T): T {
  return order(document, template) as T;
}

/** Pretty JSON in the schema's order, for the raw view. */
export function formatPolicyJson(document: unknown): string {
  return JSON.stringify(orderLikeSchema(document), null, 2);
}
