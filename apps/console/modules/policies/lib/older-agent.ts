import type { EffectivePolicy } from "../types/policy";

// Version skew between the console and an agent built before a policy field existed. The console
// normalises every policy with the schema's defaults (readCache.holdoutPercent, for one), so an
// older agent is sent fields it has never heard of. Its decoder refuses the whole policy ("<path>:
// is not a policy field", agent/internal/policy/decode.go) and keeps the last one it applied. That
// message blames the user's spelling; when the path is a field of the policy the console computed,
// the agent is simply older, and the fix is to upgrade it, not to edit the policy.

const unknownField = /(?:^|invalid policy: |; )([A-Za-z][A-Za-z0-9]*(?:(?:\.[A-Za-z][A-Za-z0-9]*)|\[\d+\])*): is not a policy field\b/g;

/** The value at a dotted path ("readCache.holdoutPercent", "a.b[0].c") of a document. */
function valueAt(document: unknown, path: string): unknown {
  let value = document;
  for (const part of path.replace(/\[(\d+)\]/g, ".$1").split(".")) {
    if (value === null || typeof value !== "object" || !(part in value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The fields of the effective policy that the agent's refusal calls unknown: the ones this console
 * knows and the agent does not. Empty when the failure is about anything else.
 */
export function fieldsUnknownToAgent(effective: EffectivePolicy, message: string): string[] {
  if (!effective.ok) return [];
  const fields = new Set<string>();
  for (const match of message.matchAll(unknownField)) {
    const path = match[1]!;
    if (valueAt(effective.policy, path) !== undefined) fields.add(path);
  }
  return [...fields];
}
