// Layers -> the one effective policy a server's agent receives, with the hash the gateway sends
// as config_hash. The merge and validation are @spindle/policy's, the only implementation.
import { describeProblems, mergeLayers as mergeDocuments, type Policy, type PolicyDocument, type Problem } from "@spindle/policy";
import { policyHash } from "@spindle/policy/hash";
import type { Layer } from "./effective-policy-layers.js";

export type MergedPolicy = { ok: true; document: Policy; hash: string } | { ok: false; problems: Problem[]; message: string };

export function mergeLayers(layers: readonly Layer[]): MergedPolicy {
  // No layers at all: the schema's defaults (every feature off), still a policy with a hash.
  const { result: parsed } = mergeDocuments(layers.map((layer) => layer.document as PolicyDocument));
  if (!parsed.ok) {
    const from = layers.map(
      (l) => `${l.source.policyName} v${l.source.version} (${l.source.scope}${l.source.tag ? ` ${l.source.tag}` : ""})`,
    );
    return {
      ok: false,
      problems: parsed.problems,
      message: `the merged policy of ${from.join(" + ") || "no layers"} is invalid, so the previous policy stays in force: ${describeProblems(parsed.problems)}`,
    };
  }
  return { ok: true, document: parsed.policy, hash: policyHash(parsed.policy) };
}
