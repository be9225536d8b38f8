// Revokes the agent credentials of many servers: the gateway answers 401 to each from its next
// request, and every gateway closes their OpAMP connections (the database announces each
// revocation: migration 20261124170000_agent_access_revoked_trigger). As a single revoke
// (modules/fleet/lib/server-lifecycle.ts), a revoked agent stays revoked until an admin allows
// a re-enrolment, and each server gets its own server.revoked audit entry.
import type { OrgSql } from "@/lib/db";
import type { BulkResult } from "../types/bulk";
import type { BulkServer } from "./bulk-targets";

type Actor = { orgId: string; userId: string };

export async function revokeServers(
  sql: OrgSql,
  actor: Actor,
  servers: BulkServer[],
  preview: boolean,
  bulkId: string,
  now: Date,
): Promise<BulkResult> {
  const ids = servers.map((server) => server.id);
  const {
    rows: [{ n: active } = { n: 0 }],
  } = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM agents WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND revoked_at IS NULL",
    [actor.orgId, ids],
  );
  const result = {
    action: "revoke" as const,
    preview,
    servers: servers.length,
    changed: active,
    unchanged: servers.length - active,
    replaced: [],
  };
  if (preview) return { ...result, bulkId: null };
  await sql.query(
    `WITH changed AS (
       UPDATE agents a SET revoked_at = $3, reenrollment_allowed_until = NULL
       WHERE a.org_id = $1 AND a.server_id = ANY($2::uuid[]) AND a.revoked_at IS NULL
       RETURNING a.server_id
     )
     INSERT INTO audit_log (org_id, actor_id, action, target, details)
     SELECT $1, $4, 'server.revoked', s.id::text, jsonb_build_object('hostname', s.hostname, 'bulk', $5::jsonb)
     FROM changed JOIN servers s ON s.id = changed.server_id AND s.org_id = $1`,
    [actor.orgId, ids, now, actor.userId, JSON.stringify({ id: bulkId, action: "revoke", servers: servers.length })],
  );
  return { ...result, bulkId };
}
