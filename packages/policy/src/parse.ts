import { problemsFromIssues } from "./zod-issues.js";
import { sortProblems, type Problem } from "./problems.js";
import { policyLayerSchema, policySchema, type Policy, type PolicyDocument } from "./schema.js";

export type PolicyResult = { ok: true; policy: Policy } | { ok: false; problems: Problem[] };
export type PolicyLayerResult = { ok: true; layer: PolicyDocument } | { ok: false; problems: Problem[] };

/** Validates a complete (effective) policy and applies every default. */
export function parsePolicy(input: unknown): PolicyResult {
  const result = policySchema.safeParse(input);
  if (result.success) return { ok: true, policy: result.data };
  return { ok: false, problems: sortProblems(problemsFromIssues(result.error.issues, input)) };
}

/** parsePolicy for JSON text, as the agent receives it; bad JSON is an invalid_json problem. */
export function parsePolicyText(text: string): PolicyResult {
  const input = parseJson(text);
  return input.ok ? parsePolicy(input.value) : input;
}

/**
 * Checks one inheritance layer (organisation default, group or server) for shape only: a layer
 * may rely on others, e.g. pin paths in a server layer when the group enables the cache. The
 * layer comes back as written, without defaults, ready for mergePolicies.
 */
export function validatePolicyLayer(input: unknown): PolicyLayerResult {
  const result = policyLayerSchema.safeParse(input);
  if (result.success) return { ok: true, layer: input as PolicyDocument };
  return { ok: false, problems: sortProblems(problemsFromIssues(result.error.issues, input)) };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problems: Problem[] } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ path: "", code: "invalid_json", message: `is not valid JSON: ${reason}` }] };
  }
}
