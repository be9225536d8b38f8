// A server's policy layers, in the order docs/policy.md ("Inheritance") merges them: the
// organisation default, its tags' policies in tag-name order, its own. Each layer is the latest
// version of the policy assigned at that scope. Pure: the SQL that feeds it is in effective-policy.ts.
import { layersForServer, type AssignmentScope } from "@spindle/policy";

/** One assignment of an organisation with its policy's latest version. */
export interface AssignedVersion {
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
  policyId: string;
  policyName: string;
  versionId: string;
  version: number;
  document: Record<string, unknown>;
}

/** Where one layer of an effective policy came from (stored in server_effective_policies.layers). */
export interface LayerSource {
  scope: AssignmentScope;
  tag: string | null;
  policyId: string;
  policyName: string;
  versionId: string;
  version: number;
}

export interface Layer {
  source: LayerSource;
  document: Record<string, unknown>;
}

function layerOf(assignment: AssignedVersion): Layer {
  const { scope, tag, policyId, policyName, versionId, version, document } = assignment;
  return { source: { scope, tag, policyId, policyName, versionId, version }, document };
}

/** The layers of one server, lowest precedence first (the order is @spindle/policy's). */
export function layersOfServer(server: { id: string; tags: readonly string[] }, assignments: readonly AssignedVersion[]): Layer[] {
  return layersForServer(server, assignments).map(layerOf);
}
