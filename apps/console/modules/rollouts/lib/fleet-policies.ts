// The effective policy hash of every server of the organisation as things stand in this
// transaction, with the layers running rollouts hold for servers they have not released: what
// the worker would materialise now (docs/policy.md, "Computing a server's effective policy" and
// "Rollouts"). A rollout compares this before and after its change to know which servers it
// changes. The merge and the hash are @spindle/policy's.
import {
  assignmentsDuringRollouts,
  layersForServer,
  mergeLayers,
  type AssignmentScope,
  type HeldSlot,
  type PolicyDocument,
} from "@spindle/policy";
import { policyHash } from "@spindle/policy/hash";
import type { RolloutSql } from "./sql";

export interface FleetServer {
  id: string;
  hostname: string;
  tags: string[];
}

interface Assigned {
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
  document: PolicyDocument;
}

/** hash null: the layers merge into an invalid policy (the server keeps its previous one). */
export interface FleetPolicies {
  servers: FleetServer[];
  hashes: Map<string, string | null>;
}

export async function fleetPolicies(sql: RolloutSql, orgId: string): Promise<FleetPolicies> {
  const { rows: servers } = await sql.query<FleetServer>(
    "SELECT id::text AS id, hostname, tags FROM servers WHERE org_id = $1 ORDER BY hostname, id",
    [orgId],
  );
  const { rows: assignments } = await sql.query<Assigned & { server_id: string | null }>(
    `SELECT a.scope, a.tag, a.server_id::text AS server_id, v.document
       FROM policy_assignments a
       JOIN LATERAL (SELECT document FROM policy_versions WHERE policy_id = a.policy_id ORDER BY version DESC LIMIT 1) v ON true
      WHERE a.org_id = $1`,
    [orgId],
  );
  const current: Assigned[] = assignments.map((a) => ({ scope: a.scope, tag: a.tag, serverId: a.server_id, document: a.document }));
  const { rows: held } = await sql.query<{
    server_id: string;
    scope: AssignmentScope;
    tag: string | null;
    slot_server_id: string | null;
    document: PolicyDocument | null;
  }>(
    `SELECT h.server_id::text AS server_id, h.scope, h.tag, h.slot_server_id::text AS slot_server_id, v.document
       FROM spindle_rollout_held_slots($1, $2::uuid[]) h
       JOIN rollouts r ON r.id = h.rollout_id
       LEFT JOIN policy_versions v ON v.org_id = $1 AND v.id = h.before_version_id
      ORDER BY r.created_at, r.id`,
    [orgId, servers.map((s) => s.id)],
  );
  const heldByServer = new Map<string, HeldSlot<Assigned>[]>();
  for (const row of held) {
    const target = { scope: row.scope, tag: row.tag, serverId: row.slot_server_id };
    heldByServer.set(row.server_id, [
      ...(heldByServer.get(row.server_id) ?? []),
      { target, previous: row.document ? { ...target, document: row.document } : null },
    ]);
  }
  const hashes = new Map<string, string | null>();
  for (const server of servers) {
    const layers = layersForServer(server, assignmentsDuringRollouts(current, heldByServer.get(server.id) ?? []));
    const { result } = mergeLayers(layers.map((layer) => layer.document));
    hashes.set(server.id, result.ok ? policyHash(result.policy) : null);
  }
  return { servers, hashes };
}
