import type { PolicyDocument } from "./schema.js";

/**
 * Inheritance: the effective policy of a server is its layers merged in order, the organisation
 * default first, then its groups (lowest precedence first), then the server's own layer.
 *
 * - A field a later layer sets replaces the earlier value; a field it leaves out is inherited.
 * - Sections (objects) merge field by field, at every depth.
 * - Lists replace as a whole: a group that sets readCache.include replaces the organisation's
 *   list; to extend it, repeat the inherited entries.
 * - null is a value: "budgetBytes": null in a later layer removes an inherited cap.
 * - Layers are checked for shape alone (validatePolicyLayer); the cross-field rules and the
 *   defaults apply to the merged result (parsePolicy), the only policy an agent ever receives.
 */
export function mergePolicies(orgDefault: PolicyDocument, ...overrides: PolicyDocument[]): PolicyDocument {
  let merged: unknown = structuredClone(orgDefault);
  for (const layer of overrides) merged = mergeValue(merged, layer);
  return merged as PolicyDocument;
}

function mergeValue(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return structuredClone(override);
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue; // an absent field, as TypeScript callers may spell it
    merged[key] = Object.hasOwn(base, key) ? mergeValue(base[key], value) : structuredClone(value);
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
