// A server's policy layers, in the order docs/policy.md ("Inheritance") merges them: the
// organisation default, its tags' policies in tag-name order, its own. Each layer is the latest
// version of the policy assigned at that scope. Pure: the SQL that feeds it is in effective-policy.ts.

export type AssignmentScope = "organization" | "tag" | "server";

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

/** Tags compare by code point (UTF-16 units; tags are ASCII), the same in every language. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function layerOf(assignment: AssignedVersion): Layer {
  const { scope, tag, policyId, policyName, versionId, version, document } = assignment;
  return { source: { scope, tag, policyId, policyName, versionId, version }, document };
}

/** The layers of one server, lowest precedence first. */
export function layersForServer(server: { id: string; tags: readonly string[] }, assignments: readonly AssignedVersion[]): Layer[] {
  const tags = new Set(server.tags);
  const organization = assignments.filter((a) => a.scope === "organization");
  const byTag = assignments
    .filter((a) => a.scope === "tag" && a.tag !== null && tags.has(a.tag))
    .sort((a, b) => byCodePoint(a.tag!, b.tag!));
  const own = assignments.filter((a) => a.scope === "server" && a.serverId === server.id);
  return [...organization, ...byTag, ...own].map(layerOf);
}
